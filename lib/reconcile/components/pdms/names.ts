/**
 * The PD microservices' own names and keys (docs/reference/pd-microservices.md): which services
 * there are, where a service's spec and status live (`spec.pdms[]` by name, `status.pdms.<name>`),
 * its objects' names (`<tc>-<svc>`, `<tc>-<svc>-peer`), its port, and how soon its rules look again.
 */

import type { TidbCluster, TidbClusterStatus } from '../../../model/kube.js';
import type { PdmsServiceName } from '../../../model/labels.js';
import type { PdMsView } from '../../../model/pd.js';
import type { RuleInput } from '../../engine/rule.js';
import { observedPd } from '../../cluster/observed.js';

/** One `spec.pdms` entry. */
export type PdmsSpec = NonNullable<TidbCluster['spec']['pdms']>[number];

/** One `status.pdms` entry. */
export type PdmsStatus = NonNullable<TidbClusterStatus['pdms']>[string];

/** The services TiDB Operator v1.6 runs (`spec.pdms[].name`'s enum), in the order it syncs them when listed so. */
export const PDMS_SERVICES: readonly PdmsServiceName[] = ['tso', 'scheduling'];

/** Each service's name in messages. */
export const PDMS_TITLES: Readonly<Record<PdmsServiceName, string>> = { tso: 'PD TSO', scheduling: 'PD scheduling' };

/** A service's client port (v1's `DefaultPDClientPort`), and the peer port its headless Service also lists. */
export const PDMS_PORTS = { client: 2379, peer: 2380 } as const;

/** How soon a PD microservice rule that made progress, or is polling, wants to look again. */
export const PDMS_RETRY_MS = 5_000;

/** As v1's `pdMSSupportMicroservicesWithName`: from this version a server takes `--name` and transfers primary by it. */
export const PDMS_NAMED_SINCE = 'v8.3.0';

/**
 * The spec of `service`, when the cluster runs it: PD in `mode: ms` **and** a `spec.pdms` entry of
 * that name (as v1, one without the other runs nothing).
 */
export function pdmsSpecOf(tc: TidbCluster, service: PdmsServiceName): PdmsSpec | undefined {
  if (tc.spec.pd?.mode !== 'ms') return undefined;
  return tc.spec.pdms?.find((s) => s.name === service);
}

/** `<tc>-<svc>`: the StatefulSet, the client Service and (InPlace) the ConfigMap. */
export const pdmsSetName = (tc: TidbCluster, service: PdmsServiceName): string => `${tc.metadata.name ?? ''}-${service}`;

/** `<tc>-<svc>-peer`: the headless Service. */
export const pdmsPeerServiceName = (tc: TidbCluster, service: PdmsServiceName): string => `${pdmsSetName(tc, service)}-peer`;

/** `status.pdms.<svc>` as the rules before this one left it (empty when there is none). */
export const pdmsStatusOf = (input: RuleInput, service: PdmsServiceName): PdmsStatus => input.status.pdms?.[service] ?? { name: service };

/** `status` with `status.pdms.<svc>` replaced by `next`. */
export function withPdmsStatus(status: TidbClusterStatus, service: PdmsServiceName, next: PdmsStatus): TidbClusterStatus {
  return { ...status, pdms: { ...status.pdms, [service]: next } };
}

/** What PD said of `service` this step, or undefined when PD was not read (or runs no microservice). */
export const pdmsViewOf = (input: RuleInput, service: PdmsServiceName): PdMsView | undefined => observedPd(input.snapshot)?.microservices?.[service];
