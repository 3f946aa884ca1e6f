/**
 * What every simulated TiDB process can reach: the Kubernetes object store (to read its pod, its
 * ConfigMap, its PVC and the TidbCluster, as the real process reads files and env), the proxy
 * registry (to listen on ports and to call other services the way in-cluster DNS would route), the
 * clock, the seeded randomness, the knobs, the per-cluster state, and the action sink that records
 * mutating API calls for the scenario report.
 */
import type { Clock } from '../../platform/clock.js';
import type { ProxyRegistry } from '../proxy.js';
import type { ObjectStore } from '../store.js';
import type { TidbSimKnobs } from './knobs.js';
import type { ClusterRegistry } from './registry.js';
import type { Rng } from './rng.js';

/** A mutating call a process received (PD, TiCDC, Pump), as the scenario report lists it. */
export type ProcessAction = { verb: string; args: Record<string, unknown>; error?: string };

/** Where received calls are reported; the scenario runner records them as actions. */
export type ActionSink = (action: ProcessAction) => void;

/** Shared services of the simulated processes. */
export type SimContext = {
  readonly store: ObjectStore;
  readonly proxy: ProxyRegistry;
  readonly clock: Clock;
  readonly rng: Rng;
  readonly knobs: TidbSimKnobs;
  readonly clusters: ClusterRegistry;
  record: ActionSink;
  /** Whether cluster `namespace/name`'s notional dataset holds data (lib/sim/backup/dataset.ts); absent: never. */
  readonly hasData?: (namespace: string, name: string) => boolean;
};
