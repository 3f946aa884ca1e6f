/**
 * The requests a simulated run makes, counted by target at the boundaries of the local world (the
 * simulated API server, the in-VPC component network, the exporter's watch source, the IAM front of
 * the embedded DynamoDB, the guarded SQS and Scheduler ports) rather than by each caller, so a new
 * caller is counted without knowing it is. The simulate report's `requests` is `RequestCounter`'s
 * snapshot at the end of the run (docs/SCENARIOS.md, Report).
 */
import type { OutgoingMessage, ReconcileQueue } from '../queue/port.js';
import { SQS_MAX_BATCH } from '../queue/port.js';
import type { SchedulerPort } from '../timer/port.js';

/** What a request can go to, in the report's key order. */
export const REQUEST_TARGETS = ['apiServer', 'exporter', 'pd', 'tidb', 'tikv', 'tiflash', 'ticdc', 'pump', 'dynamodb', 'sqs', 'scheduler'] as const;

/** One of `REQUEST_TARGETS`. */
export type RequestTarget = (typeof REQUEST_TARGETS)[number];

/** Requests by target (every target present, 0 when none). */
export type RequestCounts = Readonly<Record<RequestTarget, number>>;

/** The components a request may reach (TiDB Operator's `app.kubernetes.io/component` label values). */
export const COMPONENT_TARGETS = ['pd', 'tidb', 'tikv', 'tiflash', 'ticdc', 'pump'] as const;

/** One of `COMPONENT_TARGETS`. */
export type ComponentTarget = (typeof COMPONENT_TARGETS)[number];

/** The TiDB Operator label naming a pod's or service's component. */
const COMPONENT_LABEL = 'app.kubernetes.io/component';

/**
 * The component `labels` (a pod's or a service's) name, or undefined for anything else (the
 * discovery service, a Job's pod). As TiDB Operator labels them: `app.kubernetes.io/component`.
 */
export function componentOfLabels(labels: Readonly<Record<string, string>> | undefined): ComponentTarget | undefined {
  const value = labels?.[COMPONENT_LABEL];
  return COMPONENT_TARGETS.find((c) => c === value);
}

/**
 * Counts requests by target. Guarantees: counts only grow; `snapshot` returns every target in
 * `REQUEST_TARGETS` order (a copy, so later counting does not change it); `since` subtracts an
 * earlier snapshot target by target.
 */
export class RequestCounter {
  private readonly counts = new Map<RequestTarget, number>();

  /** Counts `n` (default 1) requests to `target`; `n` must be a whole number ≥ 0. */
  count(target: RequestTarget, n = 1): void {
    if (!Number.isInteger(n) || n < 0) throw new RangeError(`request count must be a whole number ≥ 0, got ${n}`);
    this.counts.set(target, (this.counts.get(target) ?? 0) + n);
  }

  /** The counts so far, every target present. */
  snapshot(): RequestCounts {
    return Object.fromEntries(REQUEST_TARGETS.map((t) => [t, this.counts.get(t) ?? 0])) as RequestCounts;
  }

  /** The counts made since `earlier` (a snapshot of this counter). */
  since(earlier: RequestCounts): RequestCounts {
    const now = this.snapshot();
    return Object.fromEntries(REQUEST_TARGETS.map((t) => [t, now[t] - earlier[t]])) as RequestCounts;
  }
}

/**
 * `queue` with each SQS API request it stands for counted as `sqs`: a send is one
 * SendMessageBatch per `SQS_MAX_BATCH` messages (as lib/queue/sqs.ts sends them), a delete one
 * DeleteMessageBatch per `SQS_MAX_BATCH` handles, a receive and a visibility change one each.
 * Counted when asked, refused or not (SQS meters refused requests too).
 */
export function countingQueue(queue: ReconcileQueue, counter: RequestCounter): ReconcileQueue {
  const batches = (n: number): number => Math.ceil(n / SQS_MAX_BATCH);
  return {
    send: async (messages: readonly OutgoingMessage[]) => (counter.count('sqs', batches(messages.length)), queue.send(messages)),
    receive: async (max, waitMs, signal) => (counter.count('sqs'), queue.receive(max, waitMs, signal)),
    delete: async (handles: readonly string[]) => (counter.count('sqs', batches(handles.length)), queue.delete(handles)),
    changeVisibility: async (handle, seconds) => (counter.count('sqs'), queue.changeVisibility(handle, seconds)),
  };
}

/** `send` of a queue (a due schedule's delivery) with each SendMessageBatch counted as `sqs`. */
export function countingSend(queue: Pick<ReconcileQueue, 'send'>, counter: RequestCounter): Pick<ReconcileQueue, 'send'> {
  return { send: async (messages) => (counter.count('sqs', Math.ceil(messages.length / SQS_MAX_BATCH)), queue.send(messages)) };
}

/** `scheduler` with each Scheduler API request (create, update, delete, get) counted as `scheduler`. */
export function countingScheduler(scheduler: SchedulerPort, counter: RequestCounter): SchedulerPort {
  return {
    createSchedule: async (request) => (counter.count('scheduler'), scheduler.createSchedule(request)),
    updateSchedule: async (request) => (counter.count('scheduler'), scheduler.updateSchedule(request)),
    deleteSchedule: async (name, group) => (counter.count('scheduler'), scheduler.deleteSchedule(name, group)),
    getSchedule: async (name, group) => (counter.count('scheduler'), scheduler.getSchedule(name, group)),
  };
}
