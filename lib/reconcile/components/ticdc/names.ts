/**
 * TiCDC's own names and keys: its status type, port, the graceful-shutdown annotation and timeout
 * TiDB Operator v1 uses (§2.5, §2.10), and how soon its rules look again.
 */

import type { TidbCluster, TidbClusterStatus } from '../../../model/kube.js';
import { parseDuration } from '../../../platform/duration.js';
import type { RuleInput } from '../../engine/rule.js';

/** `status.ticdc`. */
export type TicdcStatus = NonNullable<TidbClusterStatus['ticdc']>;
/** One `status.ticdc.captures` entry. */
export type TicdcStatusCapture = NonNullable<TicdcStatus['captures']>[string];

/** TiCDC's port (§2.10). */
export const TICDC_PORT = 8301;

/** How soon a TiCDC rule that made progress, or polls a drain, wants to look again. */
export const TICDC_RETRY_MS = 5_000;

/** TiDB Operator's pod annotation: when the graceful shutdown (drain) of a TiCDC pod began (RFC 3339). */
export const TICDC_GRACEFUL_SHUTDOWN_BEGIN = 'tidb.pingcap.com/ticdc-graceful-shutdown-begin-time';

/** The persisted deadline kind of a drain: after it, the pod goes whatever tables it still has. */
export const TICDC_DRAIN_DEADLINE = 'gracefulShutdown';

/** As TiDB Operator: `spec.ticdc.gracefulShutdownTimeout` defaults to 10 minutes. */
export const DEFAULT_TICDC_GRACEFUL_SHUTDOWN_MS = 10 * 60_000;

/** The graceful-shutdown timeout of the cluster's TiCDC (the default when unset or not a duration). */
export function ticdcGracefulShutdownMs(tc: TidbCluster): number {
  const text = tc.spec.ticdc?.gracefulShutdownTimeout;
  if (text === undefined || text === '') return DEFAULT_TICDC_GRACEFUL_SHUTDOWN_MS;
  try {
    return parseDuration(text);
  } catch {
    return DEFAULT_TICDC_GRACEFUL_SHUTDOWN_MS;
  }
}

/** The StatefulSet (and ConfigMap) name: `<tc>-ticdc`. */
export const ticdcSetName = (tc: TidbCluster): string => `${tc.metadata.name ?? ''}-ticdc`;

/** The headless peer Service name: `<tc>-ticdc-peer`. */
export const ticdcPeerServiceName = (tc: TidbCluster): string => `${tc.metadata.name ?? ''}-ticdc-peer`;

/** The cluster's `status.ticdc` as the rules before this one left it (empty when there is none). */
export const ticdcStatusOf = (input: RuleInput): TicdcStatus => input.status.ticdc ?? {};

/** The TiCDC version the spec asks for: `spec.ticdc.version`, else `spec.version` (undefined when neither). */
export function ticdcVersion(tc: TidbCluster): string | undefined {
  const version = tc.spec.ticdc?.version ?? tc.spec.version;
  return version === undefined || version === '' ? undefined : version;
}
