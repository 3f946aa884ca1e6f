/**
 * The seam between the simulated kubelet and the simulated processes. The kubelet owns the pod
 * lifecycle (scheduling, start-up delay, restarts, back-off, deletion); a runtime owns what runs
 * inside one container (a PD member, a TiKV store, …) and tells the kubelet when its readiness
 * changes or it exits. Containers no runtime claims get a process that is ready at once and never
 * exits, so plain pods (a Deployment's nginx) just work.
 */
import type { KubeObject } from './object.js';

/** What the kubelet gives a process: a way to say "look at me again", and which container it is. */
export type ProcessHooks = {
  /** Call after `isReady()` or `exitReason()` changed; the kubelet re-reads both on the clock. */
  onChange(): void;
  /** The name of the container being started (a pod may hold several images). */
  readonly container: string;
  /**
   * Which instance of the container this is: its restart count (as `containerStatuses[].restartCount`).
   * A process revived in the same container instance (after a hang) sees the same number.
   */
  readonly restartCount?: number;
};

/**
 * One running container process. `isReady` is the readiness probe; `exitReason` is undefined while
 * the process runs and says how it ended once it exited; `stop` is the kubelet killing it (pod
 * deletion, a fault) — a stopped process is never asked anything again.
 */
export interface SimProcess {
  isReady(): boolean;
  exitReason(): { reason: string; exitCode: number } | undefined;
  stop(): void;
}

/**
 * Starts processes for the container images it knows. `start` is called once per container start
 * (so again after every restart); it returns undefined when this runtime does not handle that
 * container's image, and the kubelet asks the next runtime.
 */
export interface ContainerRuntime {
  start(pod: KubeObject, hooks: ProcessHooks): SimProcess | undefined;
  /**
   * The same for an init container (`hooks.container` names one of `spec.initContainers`); a runtime
   * that simulates none leaves it out. The process must exit: the kubelet starts the next init
   * container, and then the containers, only after it exited with code 0.
   */
  startInit?(pod: KubeObject, hooks: ProcessHooks): SimProcess | undefined;
}

/** The process of a container nobody simulates: ready as soon as it has started, never exits. */
export class DefaultProcess implements SimProcess {
  isReady(): boolean {
    return true;
  }

  exitReason(): undefined {
    return undefined;
  }

  stop(): void {
    // Nothing runs behind it.
  }
}

/**
 * A process that exits with code 1 after `afterMs` — what a broken image does (the kubelet then
 * restarts it with back-off, i.e. CrashLoopBackOff).
 */
export class CrashingProcess implements SimProcess {
  private exited = false;
  private stopped = false;

  constructor(schedule: (fn: () => void, afterMs: number) => void, hooks: ProcessHooks, afterMs: number) {
    schedule(() => {
      if (this.stopped) return;
      this.exited = true;
      hooks.onChange();
    }, afterMs);
  }

  isReady(): boolean {
    return false;
  }

  exitReason(): { reason: string; exitCode: number } | undefined {
    return this.exited ? { reason: 'Error', exitCode: 1 } : undefined;
  }

  stop(): void {
    this.stopped = true;
  }
}

/**
 * The process of an init container nobody simulates: it does its work (a copy, a sysctl, a config
 * render) at once and exits with code 0 — what the init containers of our manifests do on a healthy
 * node.
 */
export class CompletedProcess implements SimProcess {
  isReady(): boolean {
    return false;
  }

  exitReason(): { reason: string; exitCode: number } {
    return { reason: 'Completed', exitCode: 0 };
  }

  stop(): void {
    // Nothing runs behind it.
  }
}

/** The first runtime's process for the init container, or a `CompletedProcess` when none handles it. */
export function startInitProcess(runtimes: readonly ContainerRuntime[], pod: KubeObject, hooks: ProcessHooks): SimProcess {
  for (const runtime of runtimes) {
    const process = runtime.startInit?.(pod, hooks);
    if (process) return process;
  }
  return new CompletedProcess();
}

/** The first runtime's process for the container, or a `DefaultProcess` when none handles it. */
export function startProcess(runtimes: readonly ContainerRuntime[], pod: KubeObject, hooks: ProcessHooks): SimProcess {
  for (const runtime of runtimes) {
    const process = runtime.start(pod, hooks);
    if (process) return process;
  }
  return new DefaultProcess();
}
