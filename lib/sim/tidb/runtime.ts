/**
 * The container runtime of the TiDB images: recognises PD, TiKV, TiFlash, TiDB, TiCDC, TiProxy, Pump (the
 * tidb-binlog image) and TiDB Operator's discovery by image and command, and starts the matching
 * simulated process. It is handed to the world before the world exists (the kubelet takes its
 * runtimes at construction) and attached to the world's store and proxy afterwards; until then it
 * declines every container.
 */
import type { KubeObject } from '../object.js';
import type { ContainerRuntime, ProcessHooks, SimProcess } from '../runtime.js';
import { DiscoveryProcess } from './discovery.js';
import { PdProcess } from './pd-process.js';
import { PdmsProcess, pdmsServiceOf } from './pdms-process.js';
import { type PodInfo, readPodInfo } from './pod-info.js';
import type { TidbProcess } from './process.js';
import { PumpProcess } from './pump.js';
import type { SimContext } from './sim-context.js';
import { TicdcProcess } from './ticdc.js';
import { TidbServerProcess } from './tidb.js';
import { TiflashProcess } from './tiflash.js';
import { TikvProcess } from './tikv.js';
import { TiproxyProcess } from './tiproxy.js';

/** Starts simulated TiDB processes for the containers it recognises. */
export class TidbRuntime implements ContainerRuntime {
  private sim: SimContext | undefined;
  /** The latest process of each `namespace/pod/container`, for tests and the report. */
  readonly processes = new Map<string, TidbProcess>();

  /** `next` is asked for the containers this runtime does not recognise (the backup-manager's Job pods). */
  constructor(private readonly next?: ContainerRuntime) {}

  /** Gives the runtime the world's services; containers started before this are declined. */
  attach(sim: SimContext): void {
    this.sim = sim;
  }

  /** Starts the process of a recognised container, or undefined (the next runtime is asked). */
  start(pod: KubeObject, hooks: ProcessHooks): SimProcess | undefined {
    const sim = this.sim;
    if (!sim) return undefined;
    const info = readPodInfo(sim.store, pod, hooks.container);
    if (!info) return this.next?.start(pod, hooks);
    const process = this.create(sim, info, hooks);
    this.processes.set(`${info.namespace}/${info.name}/${hooks.container}`, process);
    return process;
  }

  /** Init containers: none of this runtime's; the next runtime is asked (the initializer's `wait`). */
  startInit(pod: KubeObject, hooks: ProcessHooks): SimProcess | undefined {
    return this.next?.startInit?.(pod, hooks);
  }

  /** The latest process of a pod's simulated container, if any. */
  processOf(namespace: string, pod: string): TidbProcess | undefined {
    for (const [key, process] of this.processes) if (key.startsWith(`${namespace}/${pod}/`)) return process;
    return undefined;
  }

  private create(sim: SimContext, info: PodInfo, hooks: ProcessHooks): TidbProcess {
    switch (info.component) {
      case 'pd': {
        // The PD image also runs PD's microservices (`pd-server services tso|scheduling`).
        const service = pdmsServiceOf(info.startScript);
        return service === undefined ? new PdProcess(sim, info, hooks) : new PdmsProcess(sim, info, hooks, service);
      }
      case 'tikv':
        return new TikvProcess(sim, info, hooks);
      case 'tiflash':
        return new TiflashProcess(sim, info, hooks);
      case 'tidb':
        return new TidbServerProcess(sim, info, hooks);
      case 'ticdc':
        return new TicdcProcess(sim, info, hooks);
      case 'pump':
        return new PumpProcess(sim, info, hooks);
      case 'tiproxy':
        return new TiproxyProcess(sim, info, hooks);
      case 'discovery':
        return new DiscoveryProcess(sim, info, hooks);
      default: {
        const unreachable: never = info.component;
        return unreachable;
      }
    }
  }
}
