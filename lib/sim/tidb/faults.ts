/**
 * Faults the scenario runner and tests inject, in one place: a pod's process down, a node down, a
 * crash-looping image (the kubelet's hooks), the PD HTTP API failing for a while, and the
 * Kubernetes API failing a share of requests for a while (the API server's request hook). It also
 * remembers what it broke, so the invariant monitors can tell an injected failure from one the
 * reconciler caused.
 */
import type { Clock } from '../../platform/clock.js';
import { ApiError } from '../api-error.js';
import type { KubeObject } from '../object.js';
import type { RequestHook } from '../server.js';
import type { ObjectStore } from '../store.js';
import type { ClusterRegistry } from './registry.js';
import type { Rng } from './rng.js';

/** The kubelet's fault hooks. */
export type KubeletFaultHooks = {
  setProcessDown(namespace: string, pod: string, down: boolean): void;
  isProcessDown(pod: KubeObject): boolean;
  setNodeDown(node: string, down: boolean): void;
  breakImage(image: string, broken: boolean): void;
};

/** What faults act on. */
export type FaultTargets = {
  kubelet: KubeletFaultHooks;
  server: { requestHook: RequestHook | undefined };
  store: ObjectStore;
  clusters: ClusterRegistry;
  clock: Clock;
  rng: Rng;
};

/** Injects and heals faults; answers whether a pod is down because of one. */
export class TidbFaults {
  private readonly downNodes = new Set<string>();
  /** Uids of pods deleted by `deletePod`. */
  private readonly deletedPods = new Set<string>();
  private readonly brokenImages = new Set<string>();
  private kubeErrors: { rate: number; untilMs: number } | undefined;
  private readonly previousHook: RequestHook | undefined;

  constructor(private readonly t: FaultTargets) {
    this.previousHook = t.server.requestHook;
    t.server.requestHook = (method, path) => this.kubeApiError(method, path) ?? this.previousHook?.(method, path);
  }

  /**
   * The process of the pod now stored under the name dies (pod NotReady, member unhealthy, store
   * disconnected) until `podUp`. The fault belongs to that pod instance and its volumes: a pod
   * recreated on the same claims stays down, a replacement on fresh volumes starts healthy.
   * Throws if the pod does not exist.
   */
  podDown(namespace: string, pod: string): void {
    this.t.kubelet.setProcessDown(namespace, pod, true);
  }

  /** Heals `podDown`, whichever instance of the pod runs now. */
  podUp(namespace: string, pod: string): void {
    this.t.kubelet.setProcessDown(namespace, pod, false);
  }

  /**
   * Deletes the pod now stored under the name (as `kubectl delete pod` would, with its grace
   * period), remembering it as an injected fault; throws if there is none.
   */
  deletePod(namespace: string, pod: string): void {
    const current = this.t.store.get('Pod', namespace, pod);
    if (!current) throw new Error(`pod ${namespace}/${pod} does not exist`);
    this.deletedPods.add(current.metadata.uid ?? '');
    this.t.store.delete('Pod', namespace, pod, { preconditions: { uid: current.metadata.uid } });
  }

  /** The node goes NotReady and every process on it stops until `nodeUp`. */
  nodeDown(node: string): void {
    this.downNodes.add(node);
    this.t.kubelet.setNodeDown(node, true);
  }

  /** Heals `nodeDown`. */
  nodeUp(node: string): void {
    this.downNodes.delete(node);
    this.t.kubelet.setNodeDown(node, false);
  }

  /** Every container of exactly this image crash-loops until `fixImage`. */
  breakImage(image: string): void {
    this.brokenImages.add(image);
    this.t.kubelet.breakImage(image, true);
  }

  /** Heals `breakImage`. */
  fixImage(image: string): void {
    this.brokenImages.delete(image);
    this.t.kubelet.breakImage(image, false);
  }

  /** Every PD HTTP call fails for `forMs` (in one cluster, or all when none is named). */
  pdApiDown(forMs: number, cluster?: { namespace: string; name: string }): void {
    const until = this.t.clock.nowMs() + forMs;
    const targets = cluster ? [this.t.clusters.get(cluster.namespace, cluster.name)] : this.t.clusters.all();
    for (const c of targets) c.pd.apiDownUntilMs = Math.max(c.pd.apiDownUntilMs, until);
  }

  /**
   * PD loses its evict-leader schedulers for `forMs` (in one cluster, or all when none is named):
   * those present go now, and one added meanwhile is accepted but gone at PD's next tick.
   */
  pdSchedulersLost(forMs: number, cluster?: { namespace: string; name: string }): void {
    const until = this.t.clock.nowMs() + forMs;
    const targets = cluster ? [this.t.clusters.get(cluster.namespace, cluster.name)] : this.t.clusters.all();
    for (const c of targets) c.pd.loseSchedulers(until);
  }

  /**
   * The next join of PD pod `pod` (in `cluster`) adds its etcd member and dies before etcd starts,
   * as PD's join (server/join/join.go) adds the member first: the member stays with no name and no
   * client URL, and every later join is refused until it is removed by id. The fault ends once a
   * member was added this way.
   */
  pdJoinInterrupted(cluster: { namespace: string; name: string }, pod: string): void {
    this.t.clusters.get(cluster.namespace, cluster.name).pd.interruptNextJoin(pod);
  }

  /**
   * A `rate` share of Kubernetes API requests fail for `forMs`, as an overloaded API server fails
   * them, before serving: 500 or 429 (with `Retry-After: 1`); an update, patch or delete may also
   * get 409 (its precondition "failed"). A create never gets a bare Conflict (the real server answers
   * a create's 409 only as AlreadyExists), and a request proxied to a pod or service never gets 409
   * (the server fails it itself, before reaching the pod: it is not the pod's answer).
   */
  kubeApiErrors(rate: number, forMs: number): void {
    this.kubeErrors = { rate, untilMs: this.t.clock.nowMs() + forMs };
  }

  /** Whether `pod` is down, crash-looping or being deleted because of an injected fault. */
  isFaulted(pod: KubeObject): boolean {
    if (this.t.kubelet.isProcessDown(pod) || this.deletedPods.has(pod.metadata.uid ?? '')) return true;
    if (pod.spec?.nodeName && this.downNodes.has(pod.spec.nodeName)) return true;
    return ((pod.spec?.containers ?? []) as { image?: string }[]).some((c) => this.brokenImages.has(c.image ?? ''));
  }

  /** Removes the request hook (restoring the one that was there). */
  stop(): void {
    this.t.server.requestHook = this.previousHook;
  }

  private kubeApiError(method: string, path: string): ApiError | undefined {
    const active = this.kubeErrors;
    if (!active || this.t.clock.nowMs() >= active.untilMs) return undefined;
    // Only resource requests: discovery documents and health endpoints are left alone.
    if (!/^\/apis?\/.+\/.+/.test(path) || this.t.rng.next() >= active.rate) return undefined;
    const proxied = /\/proxy(\/|$)/.test(path);
    const guarded = !proxied && (method === 'PUT' || method === 'PATCH' || method === 'DELETE');
    const pick = this.t.rng.int(guarded ? 3 : 2);
    if (pick === 1) return new ApiError(429, 'TooManyRequests', 'the server has received too many requests and has asked us to try again later', { retryAfterSeconds: 1 });
    if (pick === 0) return new ApiError(500, 'InternalError', 'Internal error occurred: etcdserver: request timed out');
    return new ApiError(409, 'Conflict', 'Operation cannot be fulfilled: the object has been modified; please apply your changes to the latest version and try again');
  }
}
