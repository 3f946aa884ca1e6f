/**
 * What the report records of one world (the first, or a further EKS cluster's of `sim.eksClusters`):
 * its side effects as actions, attributed by the run's phase (the reconciler acts only inside handler
 * invocations, the simulated controllers only while the clock advances, the timeline between), and at
 * the end its objects and PD (docs/SCENARIOS.md, Report).
 */
import type { KubeObject } from '../sim/object.js';
import type { WriteRecord } from '../sim/server.js';
import type { ObjectStore } from '../sim/store.js';
import type { TidbSimulation } from '../sim/tidb/simulation.js';
import type { SimWorld } from '../sim/world.js';
import { isVolumeOfNamespace, objectKey, type ActionRecord, type Actor, type FinalPd } from './scenario/report.js';

/** Who is acting now: the timeline's verbs, a reconciler invocation, or the simulated world. */
export type Phase = 'timeline' | 'reconciler' | 'sim';

/** Records one action, its time filled in by the runner. */
export type RecordAction = (a: Omit<ActionRecord, 'atMs'>) => void;

const FINAL_KINDS = ['StatefulSet', 'Deployment', 'Pod', 'PersistentVolumeClaim', 'Service', 'ConfigMap', 'ServiceAccount', 'Role', 'RoleBinding', 'Job', 'Backup', 'Restore', 'CompactBackup', 'TidbInitializer', 'TidbMonitor', 'TidbDashboard', 'TidbNGMonitoring'];

/**
 * Records every side effect in `world` through `record`: each write request (by the reconciler or,
 * between invocations, the timeline), the simulated processes' calls, and the pods, claims and
 * TidbClusters the simulated controllers or the timeline create, delete or (a TidbCluster, by the
 * timeline) change.
 */
export function recordWorld(world: SimWorld, sim: TidbSimulation, record: RecordAction, phase: () => Phase): void {
  const onWrite = world.server.onWrite;
  world.server.onWrite = (w) => {
    onWrite?.(w);
    recordWrite(record, phase() === 'timeline' ? 'timeline' : 'reconciler', w);
  };
  sim.record = (a) => record({ actor: phase() === 'timeline' ? 'timeline' : 'reconciler', verb: a.verb as ActionRecord['verb'], args: a.args, ...(a.error ? { error: a.error } : {}) });
  world.store.subscribe((ev) => {
    // A client's request is recorded by onWrite; any other change made while a step runs (a
    // controller's sync firing while a handler waits out a backoff) is the sim's, not the reconciler's.
    const byRequest = world.server.isServingRequest;
    if (phase() === 'reconciler' && byRequest) return;
    const actor: Actor = phase() === 'timeline' ? 'timeline' : 'sim';
    if (ev.kind !== 'Pod' && ev.kind !== 'PersistentVolumeClaim' && ev.kind !== 'TidbCluster') return;
    if (ev.type === 'MODIFIED' && (ev.kind !== 'TidbCluster' || actor !== 'timeline')) return;
    const verb = ev.type === 'ADDED' ? 'create' : ev.type === 'DELETED' ? 'delete' : 'patch';
    record({ actor, verb, kind: ev.kind, namespace: ev.object.metadata.namespace, name: ev.object.metadata.name, object: ev.type === 'DELETED' ? ev.previous ?? ev.object : ev.object });
  });
}

function recordWrite(record: RecordAction, actor: Actor, w: WriteRecord): void {
  // An Event created, or a repeat counted on it (`count` > 1), is one `event` action; the create a
  // repeat first tries (answered AlreadyExists, then counted by the patch) is part of that one.
  if (w.kind === 'Event' && w.verb === 'create' && w.error !== undefined && /AlreadyExists|already exists/.test(w.error)) return;
  if (w.kind === 'Event' && (w.verb === 'create' || w.verb === 'patch') && w.object && !w.error) {
    const ev = w.object as { type?: string; reason?: string; message?: string; involvedObject?: unknown; count?: number };
    record({ actor, verb: 'event', args: { type: ev.type, reason: ev.reason, message: ev.message, object: ev.involvedObject, ...(typeof ev.count === 'number' && ev.count > 1 ? { count: ev.count } : {}) } });
    return;
  }
  record({ actor, verb: w.verb, kind: w.kind, namespace: w.namespace, name: w.name, ...(w.object !== undefined ? { object: w.object } : {}), ...(w.error ? { error: w.error } : {}) });
}

/** The objects of `namespaces` in `store` the report lists, by `objectKey`, with the volumes of their claims. */
export function worldObjects(store: ObjectStore, namespaces: readonly string[]): Record<string, KubeObject> {
  const objects: Record<string, KubeObject> = {};
  for (const ns of namespaces) {
    for (const kind of FINAL_KINDS) {
      for (const o of store.list(kind, ns)) objects[`${kind}/${ns}/${o.metadata.name ?? ''}`] = o;
    }
    // Volumes are cluster-scoped: those of the clusters' claims, keyed PersistentVolume/<name>.
    for (const pv of store.list('PersistentVolume', undefined, (v) => isVolumeOfNamespace(v, ns))) objects[objectKey('PersistentVolume', undefined, pv.metadata.name ?? '')] = pv;
  }
  return objects;
}

/** PD of TidbCluster `namespace/name` as `sim` runs it, as the report gives it. */
export function worldPd(sim: TidbSimulation, namespace: string, name: string): FinalPd {
  const pd = sim.snapshot(namespace, name);
  return {
    members: pd.members.map((x) => ({ name: x.name, id: x.id, health: x.health })),
    leader: pd.leader ?? null,
    stores: pd.stores.map((s) => ({ id: s.id, address: s.address, state: s.state, leaderCount: s.leaderCount, labels: s.labels })),
    schedulers: pd.schedulers,
  };
}
