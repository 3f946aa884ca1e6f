/**
 * TiDB Operator's controller manager as far as the world needs it: a process that runs client-go's
 * leader election on its Lease and nothing else (it reconciles no TidbCluster — a migration story
 * lets it run beside a cluster the reconciler built, to show the reconciler keeps its hands off).
 *
 * As pingcap/tidb-operator release-1.6 `cmd/controller-manager/main.go`: the container is the
 * operator image running `tidb-controller-manager`; the lock is a `leases` lock named
 * `tidb-controller-manager` (`-<HELM_RELEASE>` appended when that variable is set) in the namespace
 * `NAMESPACE` names (the chart sets it from the pod's own), identity the pod's hostname (its name),
 * LeaseDuration 15 s and RetryPeriod 2 s (`-leader-lease-duration`, `-leader-retry-period` change
 * them). As client-go's `tryAcquireOrRenew` (tools/leaderelection/leaderelection.go): every retry
 * period the process GETs the lock; it creates it when missing, takes it when unheld or expired
 * (renewTime + leaseDurationSeconds past: `acquireTime` now, `leaseTransitions` + 1), renews it when
 * it holds it, and otherwise waits. It never releases the lock (no `ReleaseOnCancel`): once its pod
 * stops, the Lease just stops being renewed and expires a lease duration later.
 */
import type { Clock, TimerHandle } from '../../platform/clock.js';
import { ApiError } from '../api-error.js';
import type { KubeObject } from '../object.js';
import type { ContainerRuntime, ProcessHooks, SimProcess } from '../runtime.js';
import type { ObjectStore } from '../store.js';

/** v1's defaults (pkg/controller/dependences.go). */
const DEFAULT_LEASE_DURATION_S = 15;
const DEFAULT_RETRY_PERIOD_MS = 2_000;

type Container = { name?: string; image?: string; command?: string[]; args?: string[]; env?: { name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath?: string } } }[] };

/** Starts a leader-electing controller-manager process for TiDB Operator's controller-manager containers. */
export class ControllerManagerRuntime implements ContainerRuntime {
  private world: { store: ObjectStore; clock: Clock } | undefined;

  /** `next` is asked for every other container. */
  constructor(private readonly next?: ContainerRuntime) {}

  /** Gives the runtime the world's store and clock; containers started before this are declined. */
  attach(store: ObjectStore, clock: Clock): void {
    this.world = { store, clock };
  }

  start(pod: KubeObject, hooks: ProcessHooks): SimProcess | undefined {
    const container = ((pod.spec?.containers ?? []) as Container[]).find((c) => c.name === hooks.container);
    if (!this.world || !container || !isControllerManager(container)) return this.next?.start(pod, hooks);
    return new ControllerManagerProcess(this.world.store, this.world.clock, lockOf(pod, container));
  }

  /** Init containers: none of this runtime's; the next runtime is asked (the initializer's `wait`). */
  startInit(pod: KubeObject, hooks: ProcessHooks): SimProcess | undefined {
    return this.next?.startInit?.(pod, hooks);
  }
}

/** The operator image (`…/tidb-operator:<tag>`) running `tidb-controller-manager`. */
function isControllerManager(c: Container): boolean {
  const repo = (c.image ?? '').replace(/[:@].*$/, '').split('/').pop();
  const words = [...(c.command ?? []), ...(c.args ?? [])];
  return repo === 'tidb-operator' && words.some((w) => w.endsWith('tidb-controller-manager'));
}

type Lock = { namespace: string; name: string; identity: string; leaseDurationMs: number; retryPeriodMs: number };

/** Where the process's lock is and how it elects, from its pod and container as main.go reads them. */
function lockOf(pod: KubeObject, c: Container): Lock {
  const env = new Map((c.env ?? []).map((e) => [e.name, e.valueFrom?.fieldRef?.fieldPath === 'metadata.namespace' ? pod.metadata.namespace : e.value]));
  const release = env.get('HELM_RELEASE');
  const words = [...(c.command ?? []), ...(c.args ?? [])];
  return {
    namespace: env.get('NAMESPACE') ?? pod.metadata.namespace ?? 'default',
    name: release ? `tidb-controller-manager-${release}` : 'tidb-controller-manager',
    identity: pod.metadata.name ?? '',
    leaseDurationMs: durationFlag(words, 'leader-lease-duration') ?? DEFAULT_LEASE_DURATION_S * 1000,
    retryPeriodMs: durationFlag(words, 'leader-retry-period') ?? DEFAULT_RETRY_PERIOD_MS,
  };
}

/** A Go duration flag (`-x=15s`, `--x=1m`) in ms; only s and m are read (what the chart's values use). */
function durationFlag(words: readonly string[], flag: string): number | undefined {
  for (const word of words) {
    const m = new RegExp(`^--?${flag}=(\\d+)(s|m)$`).exec(word);
    if (m) return Number(m[1]) * (m[2] === 'm' ? 60_000 : 1000);
  }
  return undefined;
}

/** `metav1.MicroTime` as it is serialised: RFC 3339 with microseconds. */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** One controller-manager container: ready at once (the chart gives it no readiness probe), electing until stopped. */
class ControllerManagerProcess implements SimProcess {
  private timer: TimerHandle | undefined;
  private stopped = false;

  constructor(
    private readonly store: ObjectStore,
    private readonly clock: Clock,
    private readonly lock: Lock,
  ) {
    this.timer = clock.setTimer(() => this.tick(), 0);
  }

  isReady(): boolean {
    return true;
  }

  exitReason(): undefined {
    return undefined;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) this.clock.clearTimer(this.timer);
  }

  private tick(): void {
    if (this.stopped) return;
    try {
      this.tryAcquireOrRenew();
    } catch (err) {
      // A lost race (409) is tried again at the next period, as client-go does.
      if (!(err instanceof ApiError)) throw err;
    }
    this.timer = this.clock.setTimer(() => this.tick(), this.lock.retryPeriodMs);
  }

  private tryAcquireOrRenew(): void {
    const { namespace, name, identity } = this.lock;
    const now = this.clock.nowMs();
    const duration = Math.round(this.lock.leaseDurationMs / 1000);
    const current = this.store.get('Lease', namespace, name);
    if (!current) {
      const spec = { holderIdentity: identity, leaseDurationSeconds: duration, acquireTime: microTime(now), renewTime: microTime(now), leaseTransitions: 0 };
      this.store.create('Lease', { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace }, spec });
      return;
    }
    const spec = (current.spec ?? {}) as { holderIdentity?: string; renewTime?: string; leaseDurationSeconds?: number; acquireTime?: string; leaseTransitions?: number };
    const mine = spec.holderIdentity === identity;
    const renewed = spec.renewTime === undefined ? NaN : Date.parse(spec.renewTime);
    const expired = !Number.isFinite(renewed) || now >= renewed + (spec.leaseDurationSeconds ?? duration) * 1000;
    if (!mine && spec.holderIdentity && !expired) return;
    const next = mine
      ? { ...spec, renewTime: microTime(now), leaseDurationSeconds: duration }
      : { ...spec, holderIdentity: identity, leaseDurationSeconds: duration, acquireTime: microTime(now), renewTime: microTime(now), leaseTransitions: (spec.leaseTransitions ?? 0) + 1 };
    this.store.update('Lease', { ...current, spec: next });
  }
}
