/**
 * A Deployment controller without ReplicaSets (not a served kind here): the Deployment owns its pods
 * directly, named `<deployment>-<pod-template-hash>-<5 chars>` as a ReplicaSet would name them, and
 * labelled `pod-template-hash`. The pods of the current template are the "new ReplicaSet", all
 * others the old ones, and the rolling update follows the deployment controller's arithmetic:
 * scale new up to replicas + maxSurge pods in all, then take old pods away — unavailable ones first —
 * while at least replicas − maxUnavailable stay available (defaults 25 %/25 %, so one replica
 * surges to two and keeps one available). Recreate removes every old pod before creating new ones.
 * Status: observedGeneration, replicas, updatedReplicas, readyReplicas, availableReplicas,
 * unavailableReplicas, and the Available and Progressing conditions.
 */
import { type KubeObject, jsonEqual, rfc3339 } from '../object.js';
import { isPodAvailable, isPodFinished, isPodReady, isTerminating, msUntilAvailable } from '../pod-status.js';
import type { ObjectStore, StoreEvent } from '../store.js';
import { type ErrorSink, LevelController, type SyncResult, controllerRef, createdAtMs, isControlledBy, keyOf, omitZero, ownerKey, splitKey } from './base.js';
import { contentHash } from './hash.js';

/** The label that tells a Deployment's pods of different templates apart. */
export const POD_TEMPLATE_HASH_LABEL = 'pod-template-hash';

type Counts = { replicas: number; maxSurge: number; maxUnavailable: number; minReadySeconds: number; recreate: boolean };
type Pods = { active: KubeObject[]; fresh: KubeObject[]; old: KubeObject[]; oldExisting: KubeObject[] };

/** An intOrString of the strategy against `replicas`: surge rounds up, unavailability down (as intstr). */
function resolve(value: unknown, replicas: number, roundUp: boolean, fallback: string): number {
  const v = value ?? fallback;
  if (typeof v === 'number') return v;
  const percent = Number(String(v).replace('%', '')) / 100;
  return roundUp ? Math.ceil(percent * replicas) : Math.floor(percent * replicas);
}

function countsOf(d: KubeObject): Counts {
  const replicas = typeof d.spec?.replicas === 'number' ? d.spec.replicas : 1;
  const ru = d.spec?.strategy?.rollingUpdate ?? {};
  let maxSurge = resolve(ru.maxSurge, replicas, true, '25%');
  let maxUnavailable = resolve(ru.maxUnavailable, replicas, false, '25%');
  // Both zero would deadlock; the controller then allows one unavailable pod.
  if (maxSurge === 0 && maxUnavailable === 0) maxUnavailable = 1;
  if (maxUnavailable > replicas) maxUnavailable = replicas;
  if (d.spec?.strategy?.type === 'Recreate') maxSurge = 0;
  return { replicas, maxSurge, maxUnavailable, minReadySeconds: d.spec?.minReadySeconds ?? 0, recreate: d.spec?.strategy?.type === 'Recreate' };
}

/** Runs Deployments on the store's clock. */
export class DeploymentController {
  private readonly loop: LevelController;

  constructor(
    private readonly store: ObjectStore,
    onError?: ErrorSink,
  ) {
    const spec = {
      name: 'deployment',
      keysFor: (ev: StoreEvent) => (ev.kind === 'Deployment' ? [keyOf(ev.object)] : ev.kind === 'Pod' ? [ownerKey(ev.object, 'Deployment')].filter((k): k is string => k !== undefined) : []),
      sync: (key: string) => this.sync(key),
      initialKeys: () => store.list('Deployment').map(keyOf),
    };
    this.loop = new LevelController(store, spec, onError);
  }

  /** Starts watching Deployments and their pods. */
  start(): void {
    this.loop.start();
  }

  /** Stops watching. */
  stop(): void {
    this.loop.stop();
  }

  private sync(key: string): SyncResult {
    const { namespace, name } = splitKey(key);
    const d = this.store.get('Deployment', namespace, name);
    if (!d || !d.spec?.selector) return;
    const counts = countsOf(d);
    const hash = contentHash(d.spec.template ?? {}, typeof d.status?.collisionCount === 'number' ? d.status.collisionCount : 0);
    const pods = this.podsOf(d, hash);
    if (!d.metadata.deletionTimestamp && !d.spec.paused) {
      if (counts.recreate) this.recreate(d, hash, pods, counts);
      else this.rollingUpdate(d, hash, pods, counts);
    }
    const now = this.store.clock.nowMs();
    const after = this.podsOf(d, hash);
    this.writeStatus(d, hash, after, counts, now);
    const waits = after.active.map((p) => msUntilAvailable(p, counts.minReadySeconds, now)).filter((ms): ms is number => ms !== undefined && ms > 0);
    return waits.length > 0 ? { requeueAfterMs: Math.min(...waits) } : undefined;
  }

  private podsOf(d: KubeObject, hash: string): Pods {
    const owned = this.store.list('Pod', d.metadata.namespace, (p) => isControlledBy(p, d.metadata.uid));
    const active = owned.filter((p) => !isTerminating(p) && !isPodFinished(p));
    const isFresh = (p: KubeObject): boolean => p.metadata.labels?.[POD_TEMPLATE_HASH_LABEL] === hash;
    return { active, fresh: active.filter(isFresh), old: active.filter((p) => !isFresh(p)), oldExisting: owned.filter((p) => !isFresh(p)) };
  }

  private rollingUpdate(d: KubeObject, hash: string, pods: Pods, c: Counts): void {
    const now = this.store.clock.nowMs();
    const available = (p: KubeObject): boolean => isPodAvailable(p, c.minReadySeconds, now);
    // Scale the new pods towards replicas, within replicas + maxSurge pods in all.
    const room = Math.min(c.replicas + c.maxSurge - pods.active.length, c.replicas - pods.fresh.length);
    for (let i = 0; i < room; i++) this.createPod(d, hash);
    if (pods.fresh.length > c.replicas) this.deletePods(rankForDeletion(pods.fresh, available).slice(0, pods.fresh.length - c.replicas));
    // Old pods go while replicas − maxUnavailable stay available; unavailable old pods first.
    const total = pods.active.length + Math.max(0, room);
    const freshUnavailable = pods.fresh.filter((p) => !available(p)).length + Math.max(0, room);
    const maxScaledDown = total - (c.replicas - c.maxUnavailable) - freshUnavailable;
    if (maxScaledDown <= 0) return;
    const oldUnavailable = pods.old.filter((p) => !available(p)).slice(0, maxScaledDown);
    this.deletePods(oldUnavailable);
    const availableNow = pods.active.filter(available).length;
    const canRemove = Math.min(availableNow - (c.replicas - c.maxUnavailable), maxScaledDown - oldUnavailable.length);
    const oldAvailable = rankForDeletion(pods.old.filter(available), available);
    this.deletePods(oldAvailable.slice(0, Math.max(0, canRemove)));
  }

  private recreate(d: KubeObject, hash: string, pods: Pods, c: Counts): void {
    if (pods.old.length > 0) return this.deletePods(pods.old);
    // New pods only once every old pod is gone, terminating ones included.
    if (pods.oldExisting.length > 0) return;
    for (let i = pods.fresh.length; i < c.replicas; i++) this.createPod(d, hash);
    if (pods.fresh.length > c.replicas) this.deletePods(pods.fresh.slice(c.replicas));
  }

  private createPod(d: KubeObject, hash: string): void {
    const template = d.spec?.template ?? {};
    this.store.create('Pod', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        generateName: `${d.metadata.name ?? ''}-${hash}-`,
        namespace: d.metadata.namespace,
        labels: { ...(template.metadata?.labels ?? {}), [POD_TEMPLATE_HASH_LABEL]: hash },
        ...(template.metadata?.annotations ? { annotations: { ...template.metadata.annotations } } : {}),
        ownerReferences: [controllerRef(d)],
      },
      spec: structuredClone(template.spec ?? {}),
      status: { phase: 'Pending' },
    });
  }

  private deletePods(pods: readonly KubeObject[]): void {
    for (const p of pods) this.store.delete('Pod', p.metadata.namespace, p.metadata.name ?? '', { preconditions: { uid: p.metadata.uid } });
  }

  private writeStatus(d: KubeObject, hash: string, pods: Pods, c: Counts, now: number): void {
    const availableCount = pods.active.filter((p) => isPodAvailable(p, c.minReadySeconds, now)).length;
    const freshAvailable = pods.fresh.filter((p) => isPodAvailable(p, c.minReadySeconds, now)).length;
    const isAvailable = availableCount >= c.replicas - c.maxUnavailable;
    const done = freshAvailable >= c.replicas && pods.old.length === 0 && pods.fresh.length === c.replicas;
    const rs = `${d.metadata.name ?? ''}-${hash}`;
    const previous = (d.status?.conditions ?? []) as Condition[];
    const { replicas: _r, updatedReplicas: _u, readyReplicas: _ready, availableReplicas: _a, unavailableReplicas: _un, ...kept } = (d.status ?? {}) as Record<string, unknown>;
    const counters = {
      replicas: pods.active.length,
      updatedReplicas: pods.fresh.length,
      readyReplicas: pods.active.filter(isPodReady).length,
      availableReplicas: availableCount,
      unavailableReplicas: Math.max(0, pods.active.length - availableCount, c.replicas - availableCount),
    };
    const status = {
      ...kept,
      observedGeneration: d.metadata.generation ?? 0,
      // Every DeploymentStatus counter is omitempty.
      ...omitZero(counters, Object.keys(counters)),
      conditions: [
        condition(previous, 'Available', isAvailable, isAvailable ? 'MinimumReplicasAvailable' : 'MinimumReplicasUnavailable', isAvailable ? 'Deployment has minimum availability.' : 'Deployment does not have minimum availability.', now),
        condition(previous, 'Progressing', true, done ? 'NewReplicaSetAvailable' : 'ReplicaSetUpdated', done ? `ReplicaSet "${rs}" has successfully progressed.` : `ReplicaSet "${rs}" is progressing.`, now),
      ],
    };
    if (jsonEqual(status, d.status)) return;
    const latest = this.store.get('Deployment', d.metadata.namespace, d.metadata.name ?? '');
    if (latest && latest.metadata.uid === d.metadata.uid) this.store.update('Deployment', { ...latest, status }, { subresource: 'status' });
  }
}

type Condition = { type: string; status: string; reason: string; message: string; lastUpdateTime: string; lastTransitionTime: string };

function condition(previous: readonly Condition[], type: string, ok: boolean, reason: string, message: string, now: number): Condition {
  const before = previous.find((c) => c.type === type);
  const status = ok ? 'True' : 'False';
  const transition = before && before.status === status ? before.lastTransitionTime : rfc3339(now);
  const update = before && before.status === status && before.reason === reason && before.message === message ? before.lastUpdateTime : rfc3339(now);
  return { type, status, reason, message, lastUpdateTime: update, lastTransitionTime: transition };
}

/** Pods in the order a ReplicaSet scales down: unavailable first, then the newest. */
function rankForDeletion(pods: readonly KubeObject[], available: (p: KubeObject) => boolean): KubeObject[] {
  return [...pods].sort((a, b) => Number(available(a)) - Number(available(b)) || createdAtMs(b) - createdAtMs(a));
}
