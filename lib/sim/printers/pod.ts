/**
 * The pod printer, as Kubernetes' `printPod`: READY counts ready containers (restartable init
 * containers — sidecars — included), STATUS is what kubectl users read (Pending, ContainerCreating,
 * Init:1/2, CrashLoopBackOff, Running, Completed, Error, Terminating…), RESTARTS carries the time
 * of the last restart ("3 (45s ago)"), and the wide columns IP, NODE, NOMINATED NODE, READINESS GATES.
 */
import type { KubeObject } from '../object.js';
import { AGE_COLUMN, type Cell, NAME_COLUMN, type RowCondition, type TablePrinter, ageOf, count, humanDuration, list, record, text } from './format.js';

type Json = Record<string, unknown>;

const COLUMNS = [
  NAME_COLUMN,
  { name: 'Ready', type: 'string', description: 'The aggregate readiness state of this pod for accepting traffic.' },
  { name: 'Status', type: 'string', description: 'The aggregate status of the containers in this pod.' },
  { name: 'Restarts', type: 'string', description: 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.' },
  AGE_COLUMN,
  { name: 'IP', type: 'string', priority: 1, description: 'podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.' },
  { name: 'Node', type: 'string', priority: 1, description: 'NodeName indicates in which node this pod is scheduled.' },
  { name: 'Nominated Node', type: 'string', priority: 1, description: 'nominatedNodeName is set only when this pod preempts other pods on the node.' },
  { name: 'Readiness Gates', type: 'string', priority: 1, description: 'If specified, all readiness gates will be evaluated for pod readiness.' },
];

/** A container's last termination time (ms), or NaN when it never terminated. */
function lastTerminationMs(status: Json): number {
  return Date.parse(text(record(record(status.lastState).terminated).finishedAt));
}

/** The later of two times where NaN means "none". */
function later(a: number, b: number): number {
  return Number.isNaN(a) || b > a ? b : a;
}

function terminatedReason(t: Json, prefix: string): string {
  if (text(t.reason) !== '') return prefix + text(t.reason);
  return count(t.signal) !== 0 ? `${prefix}Signal:${count(t.signal)}` : `${prefix}ExitCode:${count(t.exitCode)}`;
}

function condition(pod: KubeObject, type: string): Json | undefined {
  return list(pod.status?.conditions).find((c) => c.type === type);
}

type PodState = { reason: string; ready: number; total: number; restarts: number; lastRestartMs: number };

/**
 * Walks the init containers as printPod does, up to the first one not done, which decides an
 * `Init:` status. Returns whether the pod is still initialising and its sidecars' restarts.
 */
function initState(pod: KubeObject, st: PodState): { initializing: boolean; sidecarRestarts: number; sidecarLastMs: number } {
  const specs = list(pod.spec?.initContainers);
  const sidecar = new Set(specs.filter((c) => c.restartPolicy === 'Always').map((c) => text(c.name)));
  let sidecarRestarts = 0;
  let sidecarLastMs = Number.NaN;
  for (const [i, s] of list(pod.status?.initContainerStatuses).entries()) {
    st.restarts += count(s.restartCount);
    st.lastRestartMs = later(st.lastRestartMs, lastTerminationMs(s));
    const isSidecar = sidecar.has(text(s.name));
    if (isSidecar) {
      sidecarRestarts += count(s.restartCount);
      sidecarLastMs = later(sidecarLastMs, lastTerminationMs(s));
    }
    const state = record(s.state);
    const terminated = record(state.terminated);
    const waiting = record(state.waiting);
    if (state.terminated !== undefined && count(terminated.exitCode) === 0) continue;
    if (isSidecar && s.started === true) {
      if (s.ready === true) st.ready++;
      continue;
    }
    if (state.terminated !== undefined) st.reason = terminatedReason(terminated, 'Init:');
    else if (text(waiting.reason) !== '' && waiting.reason !== 'PodInitializing') st.reason = `Init:${text(waiting.reason)}`;
    else st.reason = `Init:${i}/${specs.length}`;
    return { initializing: true, sidecarRestarts, sidecarLastMs };
  }
  return { initializing: false, sidecarRestarts, sidecarLastMs };
}

/** READY, STATUS and RESTARTS of a pod, as printPod computes them. */
function podState(pod: KubeObject): PodState {
  const sidecars = list(pod.spec?.initContainers).filter((c) => c.restartPolicy === 'Always');
  const st: PodState = { reason: text(pod.status?.reason) || text(pod.status?.phase), ready: 0, total: list(pod.spec?.containers).length + sidecars.length, restarts: 0, lastRestartMs: Number.NaN };
  if (list(pod.status?.conditions).some((c) => c.type === 'PodScheduled' && c.reason === 'SchedulingGated')) st.reason = 'SchedulingGated';
  const init = initState(pod, st);
  if (!init.initializing || condition(pod, 'Initialized')?.status === 'True') {
    // Once initialised, only the sidecars' restarts count beside the containers'.
    st.restarts = init.sidecarRestarts;
    st.lastRestartMs = init.sidecarLastMs;
    let hasRunning = false;
    for (const s of [...list(pod.status?.containerStatuses)].reverse()) {
      st.restarts += count(s.restartCount);
      st.lastRestartMs = later(st.lastRestartMs, lastTerminationMs(s));
      const state = record(s.state);
      const waiting = record(state.waiting);
      if (text(waiting.reason) !== '') st.reason = text(waiting.reason);
      else if (state.terminated !== undefined) st.reason = terminatedReason(record(state.terminated), '');
      else if (s.ready === true && state.running !== undefined) {
        hasRunning = true;
        st.ready++;
      }
    }
    if (st.reason === 'Completed' && hasRunning) st.reason = condition(pod, 'Ready')?.status === 'True' ? 'Running' : 'NotReady';
  }
  const terminal = pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
  if (pod.metadata.deletionTimestamp !== undefined && pod.status?.reason === 'NodeLost') st.reason = 'Unknown';
  else if (pod.metadata.deletionTimestamp !== undefined && !terminal) st.reason = 'Terminating';
  return st;
}

function readinessGates(pod: KubeObject): string {
  const gates = list(pod.spec?.readinessGates);
  if (gates.length === 0) return '<none>';
  const met = gates.filter((g) => condition(pod, text(g.conditionType))?.status === 'True').length;
  return `${met}/${gates.length}`;
}

function cells(pod: KubeObject, nowMs: number): Cell[] {
  const st = podState(pod);
  const restarts = st.restarts !== 0 && !Number.isNaN(st.lastRestartMs) ? `${st.restarts} (${humanDuration(nowMs - st.lastRestartMs)} ago)` : String(st.restarts);
  const ip = text(list(pod.status?.podIPs)[0]?.ip) || '<none>';
  return [pod.metadata.name ?? '', `${st.ready}/${st.total}`, st.reason, restarts, ageOf(pod, nowMs), ip, text(pod.spec?.nodeName) || '<none>', text(pod.status?.nominatedNodeName) || '<none>', readinessGates(pod)];
}

/** As printPod: a Succeeded or Failed pod's row carries the Completed condition. */
function conditions(pod: KubeObject): RowCondition[] | undefined {
  if (pod.status?.phase === 'Succeeded') return [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }];
  if (pod.status?.phase === 'Failed') return [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }];
  return undefined;
}

/** The Pod kind's printer. */
export const POD_PRINTER: TablePrinter = { columns: COLUMNS, cells, conditions };
