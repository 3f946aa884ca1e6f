/**
 * One SQS batch → one step per distinct key. Records for the same key in one batch collapse into a
 * single step (running them side by side would only make all but one find the lease held and mark the
 * key dirty, costing an extra step). Keys run concurrently; a record is reported as a batch item
 * failure only when its step asks for redelivery or its body is malformed (the DLQ keeps those).
 */

import type { SQSBatchResponse, SQSRecord } from 'aws-lambda';

import type { StepConfig } from '../platform/config.js';
import { parseReconcileMessage, type ReconcileMessage } from '../queue/message.js';
import { isLeaseWake } from './lease-wake.js';
import { isHealthTrigger, isTimerTrigger, type StepPorts, type Trigger } from './ports.js';
import { runStep, type RunStepInput } from './run-step.js';
import type { StepResult } from './result.js';

/**
 * The record fields a batch needs (an `SQSRecord` fits). `receiptHandle` lets a step that claims the
 * lease bring the record back when the lease ends, should the invocation die; without it the record
 * comes back after the queue's visibility timeout.
 */
export type BatchRecord = Pick<SQSRecord, 'messageId' | 'body'> & {
  receiptHandle?: string;
  attributes?: Partial<SQSRecord['attributes']>;
};

/**
 * What a batch runs with. `invocationId` (the Lambda request id) makes lease owners unique;
 * `remainingMs` is read when the batch starts (the Lambda context's `getRemainingTimeInMillis`).
 */
export type BatchDeps = {
  readonly ports: StepPorts;
  readonly config: StepConfig;
  readonly invocationId: string;
  /** The Kubernetes cluster this deployment manages; when set, a key naming another is malformed. */
  readonly k8sCluster?: string;
  readonly remainingMs: () => number;
  /** Runs one step; the default is `runStep` (tests wrap it to stage crashes). */
  readonly step?: (input: RunStepInput) => Promise<StepResult>;
};

/** The batch's response for the event source mapping, and every step's result. */
export type BatchResult = { readonly response: SQSBatchResponse; readonly steps: readonly StepResult[] };

type Group = { key: string; messageIds: string[]; trigger: Trigger };

/** Runs the batch; never throws (a failure is a batch item failure, never a lost record). */
export async function runBatch(records: readonly BatchRecord[], deps: BatchDeps): Promise<BatchResult> {
  const { groups, malformed } = groupByKey(records, deps);
  const budgetMs = deps.remainingMs();
  const step = deps.step ?? runStep;
  const settled = await Promise.allSettled(
    groups.map((g) => {
      const owner = `${deps.invocationId}/${g.messageIds[0] ?? g.key}`;
      return step({ key: g.key, trigger: g.trigger, owner, ports: deps.ports, config: deps.config, budgetMs });
    }),
  );
  const failed = [...malformed];
  const steps: StepResult[] = [];
  settled.forEach((result, i) => {
    if (result.status === 'fulfilled') steps.push(result.value);
    // `runStep` never throws; a step that did (a wrapper's bug) is redelivered rather than lost.
    if (result.status === 'rejected' || result.value.redeliver) failed.push(...(groups[i]?.messageIds ?? []));
  });
  return { response: { batchItemFailures: failed.map((itemIdentifier) => ({ itemIdentifier })) }, steps };
}

/**
 * Groups well-formed records by key. The group's trigger is a timer's if any record is one (its
 * wake-up is consumed by this step), else the first record's that is not a lease-expiry wake-up (a
 * real trigger must step even when the lease it would watch was released); `enqueuedAtMs` is the
 * oldest, and `receiptHandles` are every record's of the key (the step stands for all of them).
 */
function groupByKey(records: readonly BatchRecord[], deps: BatchDeps): { groups: Group[]; malformed: string[] } {
  const groups = new Map<string, Group>();
  const malformed: string[] = [];
  for (const record of records) {
    const parsed = parseReconcileMessage(record.body, deps.k8sCluster === undefined ? {} : { k8sCluster: deps.k8sCluster });
    if (!parsed.ok) {
      const { field, message } = parsed.error;
      deps.ports.logger.warn('malformed reconcile message', { messageId: record.messageId, field, error: message });
      malformed.push(record.messageId);
      continue;
    }
    const trigger = toTrigger(record, parsed.message);
    const group = groups.get(parsed.message.key);
    if (!group) groups.set(parsed.message.key, { key: parsed.message.key, messageIds: [record.messageId], trigger });
    else {
      group.messageIds.push(record.messageId);
      group.trigger = mergeTriggers(group.trigger, trigger);
    }
  }
  return { groups: [...groups.values()], malformed };
}

function toTrigger(record: BatchRecord, message: ReconcileMessage): Trigger {
  const { dueAtMs, checkTidbOperator, budgetAtMs } = message;
  const reason = message.reason ?? 'unspecified';
  const enqueuedAtMs = enqueuedAt(record);
  const handles = record.receiptHandle ? { receiptHandles: [record.receiptHandle] } : {};
  const due = dueAtMs !== undefined && (isTimerTrigger({ reason }) || isHealthTrigger({ reason })) ? { dueAtMs } : {};
  return { reason, messageId: record.messageId, ...(enqueuedAtMs === undefined ? {} : { enqueuedAtMs }), ...handles, ...due, ...(checkTidbOperator ? { checkTidbOperator } : {}), ...(budgetAtMs === undefined ? {} : { budgetAtMs }) };
}

/**
 * Two records of one key as one trigger (see `groupByKey`); a health check gives way to any other
 * trigger (docs/adr/0024). Two timers' wake-ups stand for the later
 * of their due times (the step consumes both); one that does not say when it was due makes the
 * merged one not say either, so it is never taken for a replaced wake-up. A re-check of the TiDB
 * Operator verdict asked by either is asked by the merged one; a reservation of the API budget held
 * by either is held by the merged one (the earlier, when both hold one).
 */
function mergeTriggers(a: Trigger, b: Trigger): Trigger {
  // A health check merged with anything else is that other trigger: something may have changed.
  const rank = (t: Trigger): number => (isTimerTrigger(t) ? 2 : isHealthTrigger(t) ? -1 : isLeaseWake(t) ? 0 : 1);
  const chosen = rank(b) > rank(a) ? b : a;
  const times = [a.enqueuedAtMs, b.enqueuedAtMs].filter((t): t is number => t !== undefined);
  const handles = [...(a.receiptHandles ?? []), ...(b.receiptHandles ?? [])];
  const { dueAtMs: _chosenDue, checkTidbOperator: _chosenCheck, budgetAtMs: _chosenBudget, ...rest } = chosen;
  const reserved = [a.budgetAtMs, b.budgetAtMs].filter((t): t is number => t !== undefined);
  const check = a.checkTidbOperator === true || b.checkTidbOperator === true;
  const bothTimers = isTimerTrigger(a) && isTimerTrigger(b);
  const due = bothTimers ? (a.dueAtMs === undefined || b.dueAtMs === undefined ? undefined : Math.max(a.dueAtMs, b.dueAtMs)) : chosen.dueAtMs;
  return {
    ...rest,
    ...(times.length === 0 ? {} : { enqueuedAtMs: Math.min(...times) }),
    ...(handles.length === 0 ? {} : { receiptHandles: handles }),
    ...(due === undefined ? {} : { dueAtMs: due }),
    ...(check ? { checkTidbOperator: true as const } : {}),
    ...(reserved.length === 0 ? {} : { budgetAtMs: Math.min(...reserved) }),
  };
}

/** The producer's `enqueuedAtMs` from the body, else SQS's `SentTimestamp`. */
function enqueuedAt(record: BatchRecord): number | undefined {
  try {
    const body: unknown = JSON.parse(record.body);
    const at = (body as { enqueuedAtMs?: unknown }).enqueuedAtMs;
    if (typeof at === 'number' && Number.isFinite(at)) return at;
  } catch {
    // Already parsed once as valid JSON; unreachable, but a timestamp is never worth a failure.
  }
  const sent = Number(record.attributes?.SentTimestamp);
  return Number.isFinite(sent) && sent > 0 ? sent : undefined;
}
