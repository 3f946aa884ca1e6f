/**
 * The kubelet's bookkeeping for one pod and the PodStatus it reports from it, shaped as the real
 * kubelet writes it: phase Pending until a container first starts, then Running (also while a
 * container crash-loops); conditions Initialized, Ready, ContainersReady, PodScheduled whose
 * lastTransitionTime only moves when their status flips; one containerStatus per container with
 * state running/waiting/terminated, lastState, ready, started and restartCount. With init containers
 * (pkg/kubelet/kubelet_pods.go `convertToAPIContainerStatuses`, `getPhase`; pkg/kubelet/status/
 * generate.go `GeneratePodInitializedCondition`; pkg/kubelet/prober/prober_manager.go
 * `UpdatePodStatus`): `initContainerStatuses` beside them, every container not started yet waiting
 * with reason PodInitializing, an init container ready once it exited 0, Initialized False
 * (ContainersNotInitialized, "containers with incomplete status: [names]") until all did, and the
 * pod Pending meanwhile — Failed when one failed and restartPolicy is Never.
 */
import type { KubeObject } from './object.js';
import { rfc3339 } from './object.js';
import type { SimProcess } from './runtime.js';
import type { CrashBackoff } from './crash-backoff.js';
import type { ReadinessProber } from './kubelet-probes.js';

/** How a container instance ended. */
export type Termination = { exitCode: number; reason: string; startedAtMs: number; finishedAtMs: number };

/**
 * One container as the kubelet tracks it. `creating`: not started yet (ContainerCreating);
 * `running`: started (its process may be missing while the pod or node is down: a hung process);
 * `backoff`: exited, waiting in CrashLoopBackOff until `restartAtMs`; `terminated`: killed for the
 * pod's deletion; `exited`: ended for good (`exit`), as the pod's restartPolicy (Never, or OnFailure
 * after exit code 0) does not restart it.
 */
export type ContainerRun = {
  readonly name: string;
  readonly image: string;
  process: SimProcess | undefined;
  state: 'creating' | 'running' | 'backoff' | 'terminated' | 'exited';
  exit?: Termination;
  startedAtMs?: number;
  restartCount: number;
  lastTermination?: Termination;
  restartAtMs?: number;
  /** The kubelet's back-off entry for this container (crash-backoff.ts). */
  readonly backoff: CrashBackoff;
  /** The readiness probe worker of the running instance, when the container declares a probe. */
  readiness?: ReadinessProber;
};

/**
 * One pod as the kubelet tracks it. `startAtMs`: when its first container starts (set once its
 * volumes are ready); `initContainers` run before `containers` (kubelet-init.ts).
 */
export type PodRun = {
  readonly uid: string;
  readonly startTimeMs: number;
  startAtMs?: number;
  podIP?: string;
  stopDeadlineMs?: number;
  initContainers: ContainerRun[];
  containers: ContainerRun[];
};

/** What the status builder needs besides the pod and its run. */
export type StatusContext = { nowMs: number; hostIP: string; down: boolean };

type Condition = { type: string; status: string; reason?: string; message?: string; lastProbeTime: null; lastTransitionTime: string };

/**
 * Whether the container is ready, as the kubelet decides: running, and with a readiness probe what
 * its probe worker last reported (kubelet-probes.ts: thresholds and periods, so a hung process
 * stays ready until its failures reach the threshold). Without a probe a running container is
 * ready at once, whatever it is doing inside — as on a real node — unless its process is down.
 */
export function isContainerReady(c: ContainerRun, down: boolean): boolean {
  if (c.state !== 'running') return false;
  if (c.readiness) return c.readiness.ready;
  return !down && c.process !== undefined;
}

function containerState(c: ContainerRun, pod: KubeObject, nowMs: number): Record<string, unknown> {
  switch (c.state) {
    case 'creating':
      // The kubelet's default waiting state: PodInitializing when the pod has init containers.
      return { waiting: { reason: ((pod.spec?.initContainers ?? []) as unknown[]).length > 0 ? 'PodInitializing' : 'ContainerCreating' } };
    case 'running':
      return { running: { startedAt: rfc3339(c.startedAtMs ?? nowMs) } };
    case 'backoff': {
      const delayS = Math.round(c.backoff.currentDelayMs / 1000);
      const who = `container=${c.name} pod=${pod.metadata.name ?? ''}_${pod.metadata.namespace ?? ''}(${pod.metadata.uid ?? ''})`;
      return { waiting: { reason: 'CrashLoopBackOff', message: `back-off ${delayS}s restarting failed ${who}` } };
    }
    case 'terminated':
      return { terminated: terminated({ exitCode: 0, reason: 'Completed', startedAtMs: c.startedAtMs ?? nowMs, finishedAtMs: nowMs }) };
    case 'exited':
      return { terminated: terminated(c.exit ?? { exitCode: 0, reason: 'Completed', startedAtMs: c.startedAtMs ?? nowMs, finishedAtMs: nowMs }) };
    default: {
      const unreachable: never = c.state;
      return unreachable;
    }
  }
}

function terminated(t: Termination): Record<string, unknown> {
  return { exitCode: t.exitCode, reason: t.reason, startedAt: rfc3339(t.startedAtMs), finishedAt: rfc3339(t.finishedAtMs) };
}

function containerStatus(c: ContainerRun, pod: KubeObject, ctx: StatusContext, previous: Record<string, unknown> | undefined, init = false): Record<string, unknown> {
  let state = containerState(c, pod, ctx.nowMs);
  // A terminated state keeps the finish time it was first reported with.
  if (c.state === 'terminated' && previous && typeof previous.state === 'object' && previous.state !== null && 'terminated' in previous.state) state = previous.state as Record<string, unknown>;
  const started = c.state !== 'creating' || c.restartCount > 0;
  return {
    name: c.name,
    image: c.image,
    imageID: started ? `sim://${c.image}` : '',
    ...(started ? { containerID: `sim://${pod.metadata.uid ?? ''}/${c.name}/${c.restartCount}` } : {}),
    // An init container is ready once it exited with code 0 (prober_manager UpdatePodStatus).
    ready: init ? c.state === 'exited' && c.exit?.exitCode === 0 : isContainerReady(c, ctx.down),
    started: c.state === 'running',
    restartCount: c.restartCount,
    state,
    lastState: c.lastTermination ? { terminated: terminated(c.lastTermination) } : {},
  };
}

function condition(type: string, ok: boolean, previous: readonly Condition[], nowMs: number, reason?: string, message?: string): Condition {
  const status = ok ? 'True' : 'False';
  const before = previous.find((c) => c.type === type);
  const since = before && before.status === status ? before.lastTransitionTime : rfc3339(nowMs);
  return { type, status, ...(reason ? { reason } : {}), ...(message ? { message } : {}), lastProbeTime: null, lastTransitionTime: since };
}

/** The PodStatus the kubelet reports for `pod` from its run (previous conditions keep their transition times). */
export function buildPodStatus(pod: KubeObject, run: PodRun, ctx: StatusContext): Record<string, unknown> {
  const previous = (pod.status?.conditions ?? []) as Condition[];
  const previousContainers = (pod.status?.containerStatuses ?? []) as Record<string, unknown>[];
  const unready = run.containers.filter((c) => !isContainerReady(c, ctx.down)).map((c) => c.name);
  const allReady = unready.length === 0 && run.containers.length > 0;
  const phase = podPhase(pod, run);
  const why = allReady ? undefined : phase === 'Succeeded' || phase === 'Failed' ? 'PodCompleted' : 'ContainersNotReady';
  const message = allReady || why === 'PodCompleted' ? undefined : `containers with unready status: [${unready.join(' ')}]`;
  const incomplete = run.initContainers.filter((c) => !(c.state === 'exited' && c.exit?.exitCode === 0)).map((c) => c.name);
  const previousInit = (pod.status?.initContainerStatuses ?? []) as Record<string, unknown>[];
  const initStatuses = run.initContainers.map((c) => containerStatus(c, pod, ctx, previousInit.find((p) => p.name === c.name), true));
  return {
    ...(pod.status ?? {}),
    phase,
    conditions: [
      incomplete.length === 0
        ? condition('Initialized', true, previous, ctx.nowMs)
        : condition('Initialized', false, previous, ctx.nowMs, 'ContainersNotInitialized', `containers with incomplete status: [${incomplete.join(' ')}]`),
      condition('Ready', allReady, previous, ctx.nowMs, why, message),
      condition('ContainersReady', allReady, previous, ctx.nowMs, why, message),
      condition('PodScheduled', true, previous, ctx.nowMs),
    ],
    ...(ctx.hostIP ? { hostIP: ctx.hostIP, hostIPs: [{ ip: ctx.hostIP }] } : {}),
    ...(run.podIP ? { podIP: run.podIP, podIPs: [{ ip: run.podIP }] } : {}),
    startTime: rfc3339(run.startTimeMs),
    ...(initStatuses.length > 0 ? { initContainerStatuses: initStatuses } : {}),
    containerStatuses: run.containers.map((c) => containerStatus(c, pod, ctx, previousContainers.find((p) => p.name === c.name))),
    qosClass: pod.status?.qosClass ?? qosClass(pod),
  };
}

/**
 * The pod phase as the kubelet's getPhase: Failed when an init container failed and restartPolicy
 * is Never; Pending until a container first starts; Succeeded or Failed once every container has
 * exited for good (Failed if any exited non-zero); else Running.
 */
function podPhase(pod: KubeObject, run: PodRun): string {
  if (pod.spec?.restartPolicy === 'Never' && run.initContainers.some((c) => c.state === 'exited' && (c.exit?.exitCode ?? 0) !== 0)) return 'Failed';
  if (run.containers.length > 0 && run.containers.every((c) => c.state === 'exited')) {
    return run.containers.some((c) => (c.exit?.exitCode ?? 0) !== 0) ? 'Failed' : 'Succeeded';
  }
  return run.containers.some((c) => c.state !== 'creating' || c.restartCount > 0) ? 'Running' : 'Pending';
}

/** The QoS class as the API server assigns it: Guaranteed, Burstable or BestEffort. */
function qosClass(pod: KubeObject): string {
  const containers = (pod.spec?.containers ?? []) as { resources?: { requests?: Record<string, unknown>; limits?: Record<string, unknown> } }[];
  const any = containers.some((c) => Object.keys(c.resources?.requests ?? {}).length > 0 || Object.keys(c.resources?.limits ?? {}).length > 0);
  if (!any) return 'BestEffort';
  const guaranteed = containers.every((c) => {
    const limits = c.resources?.limits ?? {};
    const requests = c.resources?.requests ?? limits;
    return ['cpu', 'memory'].every((r) => limits[r] !== undefined && String(requests[r] ?? limits[r]) === String(limits[r]));
  });
  return guaranteed ? 'Guaranteed' : 'Burstable';
}
