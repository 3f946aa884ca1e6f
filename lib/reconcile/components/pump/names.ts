/**
 * Pump's own names and keys: its status type, port, how soon its rules look again, and the names
 * TiDB Operator v1 gives its objects (§2.6): one headless Service `<tc>-pump` that the StatefulSet
 * also names, the data claim `data`, the ConfigMap key `pump-config`.
 */

import type { TidbCluster, TidbClusterStatus } from '../../../model/kube.js';
import type { RuleInput } from '../../engine/rule.js';

/** `status.pump`. */
export type PumpStatus = NonNullable<TidbClusterStatus['pump']>;

/** Pump's port (§2.10). */
export const PUMP_PORT = 8250;

/** How soon a Pump rule that made progress, or waits for a node to go offline, wants to look again. */
export const PUMP_RETRY_MS = 5_000;

/** As TiDB Operator: a scaled-in pod no node is found for may go once it has not been Ready for 5 × the 30 s resync. */
export const PUMP_NOT_READY_GRACE_MS = 5 * 30_000;

/** The StatefulSet, ConfigMap and headless Service name: `<tc>-pump`. */
export const pumpSetName = (tc: TidbCluster): string => `${tc.metadata.name ?? ''}-pump`;

/** The cluster's `status.pump` as the rules before this one left it (empty when there is none). */
export const pumpStatusOf = (input: RuleInput): PumpStatus => input.status.pump ?? {};
