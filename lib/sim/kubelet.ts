/**
 * The kubelets of every simulated node in one object, plus the scheduler and the node lifecycle
 * controller's effect on pods. A bound pod waits for its claims to be Bound and the Secrets its
 * non-optional secret volumes name to exist (ContainerCreating, as the kubelet's FailedMount),
 * then `podStartupMs` later its containers start (phase Running, Ready once every process reports
 * ready, or — with a readiness probe — once the probe passes, on the probe's own timing, see
 * kubelet-probes.ts). A process that exits is restarted with the kubelet's back-off
 * (crash-backoff.ts: at once, then 10 s, 20 s, 40 s … 300 s; CrashLoopBackOff) — unless the pod's
 * restartPolicy says otherwise (Never; OnFailure after exit 0): then the container stays terminated
 * and the pod ends Succeeded or Failed. Init containers run first, one at a time, and the containers
 * start only once all of them exited 0 (kubelet-init.ts); meanwhile the pod is Pending. A pod marked
 * for deletion has its processes stopped and is removed after min(grace period, `stopMs`) — unless its node is down, where nothing finishes it (it
 * stays Terminating until force-deleted, as on a real cluster).
 *
 * Node down (node-lifecycle.ts): its processes stop at once and its kubelet writes nothing more;
 * the Node turns NotReady and its pods' Ready condition False only after the node-monitor grace
 * period (50 s), and the pods are evicted when their toleration of the unreachable taint runs out.
 * Processes on the node start afresh (new probe workers) when it comes back. What it does is
 * recorded as the real kubelet's Events (kubelet-container-events.ts, kubelet-events.ts).
 */
import { type KubeObject, jsonEqual } from './object.js';
import { nodeInternalIP } from './nodes.js';
import { NodeLifecycle } from './node-lifecycle.js';
import { CrashBackoff } from './crash-backoff.js';
import { ReadinessProber, readinessProbeTiming } from './kubelet-probes.js';
import { missingSecretVolumes, podSecretNames, recordFailedMounts } from './kubelet-events.js';
import { readinessFailureOutput, recordContainerBackOff, recordContainerKilling, recordContainerStart, recordReadinessFailures } from './kubelet-container-events.js';
import { type ContainerRuntime, CrashingProcess, type SimProcess, startInitProcess, startProcess } from './runtime.js';
import { type InitPorts, restartsAfter, stepInitContainers } from './kubelet-init.js';
import type { ObjectStore, StoreEvent } from './store.js';
import { type ErrorSink, LevelController, type SyncResult, keyOf, splitKey } from './controllers/base.js';
import { Scheduler, podClaimNames } from './kubelet-scheduler.js';
import { ProcessFaults } from './process-faults.js';
import { type ContainerRun, type PodRun, type Termination, buildPodStatus } from './kubelet-status.js';

/** Options of the kubelet; each has a default. */
export type KubeletOptions = {
  /** From volumes ready to containers started (default 5000 ms). */
  podStartupMs?: number;
  /** Processes behind container images, asked in order (default: none, every container is a DefaultProcess). */
  runtimes?: readonly ContainerRuntime[];
  /** How long stopping a pod's containers takes at most (default 1000 ms; a shorter grace period wins). */
  stopMs?: number;
  /** How long a container of a broken image runs before it exits with code 1 (default 1000 ms). */
  crashAfterMs?: number;
  /** How long a lost node goes without a heartbeat before it is marked NotReady (default 50 s, node-lifecycle.ts). */
  nodeMonitorGracePeriodMs?: number;
  onError?: ErrorSink;
};

/** Runs the pods bound to the simulated nodes; also hosts the scheduler and the fault hooks. */
export class Kubelet {
  private readonly runs = new Map<string, PodRun>();
  private readonly processFaults: ProcessFaults;
  private readonly brokenImages = new Set<string>();
  private readonly loop: LevelController;
  private readonly scheduler: Scheduler;
  private readonly podStartupMs: number;
  private readonly stopMs: number;
  private readonly crashAfterMs: number;
  private readonly runtimes: readonly ContainerRuntime[];
  private readonly nodes: NodeLifecycle;
  private ipCounter = 0;

  constructor(
    private readonly store: ObjectStore,
    opts: KubeletOptions = {},
  ) {
    this.podStartupMs = opts.podStartupMs ?? 5000;
    this.stopMs = opts.stopMs ?? 1000;
    this.crashAfterMs = opts.crashAfterMs ?? 1000;
    this.runtimes = opts.runtimes ?? [];
    this.scheduler = new Scheduler(store, opts.onError);
    this.processFaults = new ProcessFaults(store);
    const podsOn = (node: string): void => store.list('Pod', undefined, (p) => p.spec?.nodeName === node).forEach((p) => this.loop.enqueue(keyOf(p)));
    this.nodes = new NodeLifecycle(store, podsOn, opts.nodeMonitorGracePeriodMs);
    const spec = { name: 'kubelet', keysFor: (ev: StoreEvent) => this.keysFor(ev), sync: (key: string) => this.sync(key), initialKeys: () => store.list('Pod').map(keyOf) };
    this.loop = new LevelController(store, spec, opts.onError);
  }

  /** Starts scheduling and running pods. */
  start(): void {
    this.scheduler.start();
    this.loop.start();
  }

  /** Stops everything and every process. */
  stop(): void {
    this.loop.stop();
    this.scheduler.stop();
    this.nodes.stop();
    for (const run of this.runs.values()) stopProcesses(run);
    this.runs.clear();
  }

  /**
   * Kills (true) or revives (false) the process of the pod now stored under the name: its
   * containers stay running but unready, like a hung process failing its readiness probe, so the
   * phase stays Running and restartCount does not move; revived, fresh processes start in the same
   * containers. The fault belongs to that pod instance and its volumes (see ProcessFaults): a
   * replacement on fresh volumes starts healthy, one on the same claims stays down until revived.
   * Killing a pod that does not exist throws.
   */
  setProcessDown(namespace: string, pod: string, down: boolean): void {
    if (down) this.processFaults.kill(namespace, pod);
    else this.processFaults.heal(namespace, pod);
    this.loop.enqueue(`${namespace}/${pod}`);
  }

  /** Whether `pod`'s process is dead because of `setProcessDown`. */
  isProcessDown(pod: KubeObject): boolean {
    return this.processFaults.isDown(pod);
  }

  /**
   * Takes a node's host down (its processes stop at once; the Node turns NotReady and its pods
   * unready after the node-monitor grace period) or brings it back.
   */
  setNodeDown(node: string, down: boolean): void {
    this.nodes.setHostDown(node, down);
  }

  /**
   * Makes every container of exactly `image` crash with exit code 1 (CrashLoopBackOff; an init
   * container's pod shows `Init:CrashLoopBackOff`), or heals it.
   */
  breakImage(image: string, broken: boolean): void {
    if (broken) this.brokenImages.add(image);
    else this.brokenImages.delete(image);
    const uses = (p: KubeObject): boolean => ([...(p.spec?.containers ?? []), ...(p.spec?.initContainers ?? [])] as { image?: string }[]).some((c) => c.image === image);
    for (const pod of this.store.list('Pod', undefined, uses)) this.loop.enqueue(keyOf(pod));
  }

  private keysFor(ev: StoreEvent): string[] {
    const obj = ev.object;
    if (ev.kind === 'Pod') return [keyOf(obj)];
    if (ev.kind === 'Node') return this.store.list('Pod', undefined, (p) => p.spec?.nodeName === obj.metadata.name).map(keyOf);
    if (ev.kind === 'Secret') return this.store.list('Pod', obj.metadata.namespace, (p) => podSecretNames(p).includes(obj.metadata.name ?? '')).map(keyOf);
    if (ev.kind !== 'PersistentVolumeClaim') return [];
    return this.store.list('Pod', obj.metadata.namespace, (p) => podClaimNames(p).includes(obj.metadata.name ?? '')).map(keyOf);
  }

  private sync(key: string): SyncResult {
    const { namespace, name } = splitKey(key);
    const pod = this.store.get('Pod', namespace, name);
    const known = this.runs.get(key);
    if (known && known.uid !== pod?.metadata.uid) {
      stopProcesses(known);
      this.runs.delete(key);
    }
    if (!pod?.spec?.nodeName) return;
    const node = this.store.get('Node', undefined, pod.spec.nodeName);
    const run = this.runs.get(key) ?? this.newRun(key, pod);
    if (!node) {
      stopProcesses(run);
      this.writeStatus(pod, run, node, true);
      return;
    }
    if (this.nodes.isHostDown(node.metadata.name ?? '')) {
      // Nobody runs this node's pods and nobody posts their status: only the node lifecycle
      // controller's marking and eviction happen. Back up, the containers start with new probe workers.
      stopProcesses(run);
      for (const c of run.containers) c.readiness = undefined;
      const evictInMs = this.nodes.evictIfDue(pod, node);
      return evictInMs === undefined ? undefined : { requeueAfterMs: evictInMs };
    }
    if (pod.metadata.deletionTimestamp) return this.terminate(key, pod, run, node);
    const result = this.advance(key, pod, run);
    this.writeStatus(pod, run, node, this.processFaults.isDown(pod));
    return result;
  }

  private newRun(key: string, pod: KubeObject): PodRun {
    const fresh = (list: unknown): ContainerRun[] =>
      ((list ?? []) as { name?: string; image?: string }[]).map((c): ContainerRun => ({ name: c.name ?? '', image: c.image ?? '', process: undefined, state: 'creating', restartCount: 0, backoff: new CrashBackoff() }));
    const run: PodRun = { uid: pod.metadata.uid ?? '', startTimeMs: this.store.clock.nowMs(), initContainers: fresh(pod.spec?.initContainers), containers: fresh(pod.spec?.containers) };
    this.runs.set(key, run);
    return run;
  }

  /** Moves the pod's containers along; returns when it needs looking at again. */
  private advance(key: string, pod: KubeObject, run: PodRun): SyncResult {
    const now = this.store.clock.nowMs();
    if (run.startAtMs === undefined) {
      if (!this.volumesReady(pod)) return;
      run.startAtMs = now + this.podStartupMs;
    }
    if (now < run.startAtMs) return { requeueAfterMs: run.startAtMs - now };
    run.podIP = run.podIP ?? this.nextPodIP();
    const podIP = run.podIP;
    const init = stepInitContainers(pod, run.initContainers, now, this.initPorts(key, pod));
    if (!init.done) return init.wakeAtMs === undefined ? undefined : { requeueAfterMs: Math.max(0, init.wakeAtMs - now) };
    const wakes = run.containers.map((c) => this.stepContainer(key, pod, c, now, podIP)).filter((at): at is number => at !== undefined);
    return wakes.length > 0 ? { requeueAfterMs: Math.min(...wakes) - now } : undefined;
  }

  /**
   * Claims must exist, be Bound and not be terminating before the containers can mount them; a
   * secret volume needs its Secret (MountVolume.SetUp fails with `secret "x" not found` until then).
   */
  private volumesReady(pod: KubeObject): boolean {
    const claimsReady = podClaimNames(pod).every((claimName) => {
      const claim = this.store.get('PersistentVolumeClaim', pod.metadata.namespace, claimName);
      return claim !== undefined && claim.status?.phase === 'Bound' && !claim.metadata.deletionTimestamp;
    });
    const missing = missingSecretVolumes(this.store, pod);
    recordFailedMounts(this.store, pod, missing);
    return claimsReady && missing.length === 0;
  }

  private stepContainer(key: string, pod: KubeObject, c: ContainerRun, now: number, podIP: string): number | undefined {
    const down = this.processFaults.isDown(pod);
    if (c.state === 'creating') this.run(key, pod, c, now, down);
    if (c.state === 'backoff') {
      if (now < (c.restartAtMs ?? now)) return c.restartAtMs;
      c.backoff.restarted(c.lastTermination?.finishedAtMs ?? now, now);
      c.restartCount++;
      this.run(key, pod, c, now, down);
    }
    if (c.state !== 'running') return undefined;
    if (down) {
      c.process?.stop();
      c.process = undefined;
      return this.probe(pod, c, now, podIP);
    }
    if (!c.process) c.process = this.spawn(key, pod, c);
    const exit = this.brokenImages.has(c.image) && !(c.process instanceof CrashingProcess) ? { reason: 'Error', exitCode: 1 } : c.process.exitReason();
    if (!exit) return this.probe(pod, c, now, podIP);
    const termination = { ...exit, startedAtMs: c.startedAtMs ?? now, finishedAtMs: now };
    if (!restartsAfter(pod, exit.exitCode)) {
      // restartPolicy Never (or OnFailure after a clean exit): the container stays terminated.
      c.process?.stop();
      c.process = undefined;
      c.state = 'exited';
      c.exit = termination;
      return undefined;
    }
    const restartNow = this.exited(c, termination);
    // Not in back-off yet: restart at once (the kubelet only backs off from the second crash on).
    if (restartNow) return this.stepContainer(key, pod, c, now, podIP);
    recordContainerBackOff(this.store, pod, c.name);
    return c.restartAtMs;
  }

  private run(key: string, pod: KubeObject, c: ContainerRun, now: number, down: boolean): void {
    c.state = 'running';
    c.startedAtMs = now;
    c.readiness = undefined;
    c.process = down ? undefined : this.spawn(key, pod, c);
    recordContainerStart(this.store, pod, c.name);
  }

  /** Runs the container's due readiness probes (a new worker per container instance); when to look again. */
  private probe(pod: KubeObject, c: ContainerRun, now: number, podIP: string): number | undefined {
    const timing = readinessProbeTiming(pod, c.name);
    if (!timing) return undefined;
    c.readiness ??= new ReadinessProber(timing, now);
    const wake = c.readiness.probeDue(now, c.process?.isReady() ?? false);
    recordReadinessFailures(this.store, pod, c.name, readinessFailureOutput(pod, c.name, podIP, c.process !== undefined), c.readiness.takeFailures());
    return wake;
  }

  private initPorts(key: string, pod: KubeObject): InitPorts {
    return {
      spawn: (c: ContainerRun) => this.spawn(key, pod, c, true),
      started: (c: ContainerRun) => recordContainerStart(this.store, pod, c.name),
      exited: (c: ContainerRun, t: Termination) => this.exited(c, t),
      backOff: (c: ContainerRun) => recordContainerBackOff(this.store, pod, c.name),
    };
  }

  private spawn(key: string, pod: KubeObject, c: ContainerRun, init = false): SimProcess {
    const hooks = { onChange: () => this.loop.enqueue(key), container: c.name, restartCount: c.restartCount };
    if (!this.brokenImages.has(c.image)) return init ? startInitProcess(this.runtimes, pod, hooks) : startProcess(this.runtimes, pod, hooks);
    return new CrashingProcess((fn, afterMs) => this.store.clock.setTimer(fn, afterMs), hooks, this.crashAfterMs);
  }

  /** A container instance ended: in back-off (IsInBackOffSince) it waits; otherwise it restarts now (true). */
  private exited(c: ContainerRun, t: Termination): boolean {
    c.process?.stop();
    c.process = undefined;
    c.readiness = undefined;
    c.lastTermination = t;
    c.state = 'backoff';
    c.restartAtMs = c.backoff.restartAtMs(t.finishedAtMs);
    return c.restartAtMs <= t.finishedAtMs;
  }

  private terminate(key: string, pod: KubeObject, run: PodRun, node: KubeObject): SyncResult {
    const now = this.store.clock.nowMs();
    if (run.stopDeadlineMs === undefined) {
      stopProcesses(run);
      for (const c of [...run.initContainers, ...run.containers]) if (c.state === 'running') recordContainerKilling(this.store, pod, c.name);
      for (const c of run.containers) if (c.state !== 'creating') c.state = 'terminated';
      // An init container that completed keeps its exit; a running one is killed.
      for (const c of run.initContainers) if (c.state === 'running' || c.state === 'backoff') c.state = 'terminated';
      const graceMs = (pod.metadata.deletionGracePeriodSeconds ?? 30) * 1000;
      run.stopDeadlineMs = now + Math.min(graceMs, this.stopMs);
    }
    if (now < run.stopDeadlineMs) {
      this.writeStatus(pod, run, node, true);
      return { requeueAfterMs: run.stopDeadlineMs - now };
    }
    this.runs.delete(key);
    const { namespace, name } = splitKey(key);
    // Finalizers left: the kubelet's final delete has grace 0, so removing them removes the pod.
    if (!this.store.finishDeletion('Pod', namespace, name)) this.store.delete('Pod', namespace, name, { gracePeriodSeconds: 0, preconditions: { uid: run.uid } });
    return undefined;
  }

  private writeStatus(pod: KubeObject, run: PodRun, node: KubeObject | undefined, down: boolean): void {
    const status = buildPodStatus(pod, run, { nowMs: this.store.clock.nowMs(), hostIP: node ? nodeInternalIP(node) : '', down });
    if (jsonEqual(status, pod.status)) return;
    this.store.update('Pod', { ...pod, status }, { subresource: 'status' });
  }

  private nextPodIP(): string {
    const n = this.ipCounter++;
    return `10.1.${Math.floor(n / 250) % 250}.${(n % 250) + 2}`;
  }
}

function stopProcesses(run: PodRun): void {
  for (const c of [...run.initContainers, ...run.containers]) {
    c.process?.stop();
    c.process = undefined;
  }
}
