/**
 * The container runtime of TiDB Operator's initializer: a container that runs
 * `python /usr/local/bin/start_script.py` (the `mysql-client` container of the Job v1 builds; any
 * image — v1's examples use `tnir/mysqlclient`) gets an `InitializerProcess`. Attached to the world
 * after it starts, as the other runtimes; until then, and for every other container, it asks `next`.
 */
import type { KubeObject } from '../object.js';
import type { ContainerRuntime, ProcessHooks, SimProcess } from '../runtime.js';
import { type InitializerDeps, InitializerProcess } from './process.js';
import { mountedWaitScript, readWaitScript, WaitProcess } from './wait.js';

/** The script path v1 runs (`/usr/local/bin/start_script.py`). */
const START_SCRIPT = '/usr/local/bin/start_script.py';

/** Whether a container runs the initializer's start script. */
export function isInitializerContainer(container: { command?: string[]; args?: string[] }): boolean {
  const argv = [...(container.command ?? []), ...(container.args ?? [])];
  return /(^|\/)python[0-9.]*$/.test(argv[0] ?? '') && argv[1] === START_SCRIPT;
}

/** Starts initializer processes. */
export class InitializerRuntime implements ContainerRuntime {
  private deps: InitializerDeps | undefined;
  /** The latest process of each `namespace/pod`, for tests and diagnostics (its `log`). */
  readonly processes = new Map<string, InitializerProcess>();
  /** The latest `wait` init container process of each `namespace/pod` (its `log`). */
  readonly waits = new Map<string, WaitProcess>();

  constructor(private readonly next?: ContainerRuntime) {}

  /** Gives the runtime the world's store, clock and service proxy. */
  attach(deps: InitializerDeps): void {
    this.deps = deps;
  }

  start(pod: KubeObject, hooks: ProcessHooks): SimProcess | undefined {
    const container = ((pod.spec?.containers ?? []) as { name?: string; command?: string[]; args?: string[] }[]).find((c) => c.name === hooks.container);
    if (!this.deps || !container || !isInitializerContainer(container)) return this.next?.start(pod, hooks);
    const process = new InitializerProcess(this.deps, pod, hooks);
    this.processes.set(`${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`, process);
    return process;
  }

  /** The `wait` init container of an initializer pod (its main container runs the start script) gets a `WaitProcess`. */
  startInit(pod: KubeObject, hooks: ProcessHooks): SimProcess | undefined {
    const isInitializerPod = ((pod.spec?.containers ?? []) as { command?: string[]; args?: string[] }[]).some(isInitializerContainer);
    const container = ((pod.spec?.initContainers ?? []) as { name?: string; command?: string[]; args?: string[] }[]).find((c) => c.name === hooks.container);
    const script = this.deps && container && isInitializerPod ? mountedWaitScript(this.deps, pod, container) : undefined;
    const target = script === undefined ? undefined : readWaitScript(script);
    if (!this.deps || target === undefined) return this.next?.startInit?.(pod, hooks);
    const process = new WaitProcess(this.deps, pod, target, hooks);
    this.waits.set(`${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`, process);
    return process;
  }
}
