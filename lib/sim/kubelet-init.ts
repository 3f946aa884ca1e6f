/**
 * The kubelet's init containers, as `pkg/kubelet/kuberuntime/kuberuntime_manager.go`
 * (`computePodActions`) and `kuberuntime_container.go` (`findNextInitContainerToRun`) run them: one
 * at a time in `spec.initContainers` order, each only after the one before exited with code 0, and
 * the pod's containers only once every one has. A failed init container is restarted with the
 * container back-off (crash-backoff.ts) unless the pod's restartPolicy is Never — then it stays
 * terminated and the pod fails (`getPhase`, pkg/kubelet/kubelet_pods.go: a failed initialization
 * with restartPolicy Never is PodFailed). Init containers with `restartPolicy: Always` (sidecars)
 * are not simulated: the API server's validation of this world refuses nothing about them, so they
 * run as ordinary init containers that must exit.
 */
import type { KubeObject } from './object.js';
import type { ContainerRun, Termination } from './kubelet-status.js';
import type { SimProcess } from './runtime.js';

/** Where the pod's initialization stands: done, or not (then when to look again, if a timer says so). */
export type InitStep = { readonly done: true } | { readonly done: false; readonly wakeAtMs?: number };

/** What stepping the init containers needs from the kubelet. */
export type InitPorts = {
  /** A new process for the init container (its runtime's, or one that exits 0 at once). */
  spawn(c: ContainerRun): SimProcess;
  /** The container instance started: the kubelet's Created/Started Events. */
  started(c: ContainerRun): void;
  /** It exited and waits for its restart: true when it restarts at once (not in back-off yet). */
  exited(c: ContainerRun, t: Termination): boolean;
  /** It waits in back-off: the kubelet's BackOff Event. */
  backOff(c: ContainerRun): void;
};

/** Whether the kubelet restarts a container that exited with `exitCode`, per the pod's restartPolicy. */
export function restartsAfter(pod: KubeObject, exitCode: number): boolean {
  const policy = pod.spec?.restartPolicy;
  if (policy === 'Never') return false;
  if (policy === 'OnFailure') return exitCode !== 0;
  return true;
}

/** Whether the init container ran to completion (terminated with exit code 0). */
export function isInitDone(c: ContainerRun): boolean {
  return c.state === 'exited' && c.exit?.exitCode === 0;
}

/**
 * Moves the pod's init containers along at `nowMs`: starts the first one not done, notices its exit,
 * and goes on to the next within the same sync once it succeeded (the kubelet would on its next
 * SyncPod, a moment later). Guarantees: at most one init container runs at a time; `done` only when
 * every one exited 0.
 */
export function stepInitContainers(pod: KubeObject, containers: readonly ContainerRun[], nowMs: number, ports: InitPorts): InitStep {
  for (const c of containers) {
    for (;;) {
      if (isInitDone(c) || c.state === 'exited' || c.state === 'terminated') break;
      if (c.state === 'creating') start(c, nowMs, ports);
      if (c.state === 'backoff') {
        if (nowMs < (c.restartAtMs ?? nowMs)) return { done: false, ...(c.restartAtMs === undefined ? {} : { wakeAtMs: c.restartAtMs }) };
        c.backoff.restarted(c.lastTermination?.finishedAtMs ?? nowMs, nowMs);
        c.restartCount++;
        start(c, nowMs, ports);
      }
      // Back after its node was down: the container runs again in a fresh process.
      c.process ??= ports.spawn(c);
      const exit = c.process.exitReason();
      if (exit === undefined) return { done: false };
      const t: Termination = { ...exit, startedAtMs: c.startedAtMs ?? nowMs, finishedAtMs: nowMs };
      if (exit.exitCode === 0 || !restartsAfter(pod, exit.exitCode)) {
        c.process.stop();
        c.process = undefined;
        c.state = 'exited';
        c.exit = t;
        break;
      }
      if (ports.exited(c, t)) continue;
      ports.backOff(c);
      return { done: false, ...(c.restartAtMs === undefined ? {} : { wakeAtMs: c.restartAtMs }) };
    }
    if (!isInitDone(c)) return { done: false };
  }
  return { done: true };
}

function start(c: ContainerRun, nowMs: number, ports: InitPorts): void {
  c.state = 'running';
  c.startedAtMs = nowMs;
  c.process = ports.spawn(c);
  ports.started(c);
}
