/**
 * The world the queue-semantics tests run in: the real engine (`runBatch` → `runStep`) fed by the
 * Lambda-like poller from the in-process SQS queue, state in dynalite through the real DynamoDB
 * adapter, timers through the real `QueueSchedulerTimers` and the in-process scheduler, all on one
 * virtual clock. Observer and Executor are fakes.
 */

import type { SQSBatchResponse } from 'aws-lambda';

import { SqsPoller, type SqsBatchHandler } from '../../lib/queue/poller.js';
import type { ReconcileMessageBody } from '../../lib/queue/port.js';
import { DynamoStateStore } from '../../lib/state/dynamo.js';
import { ensureTable } from '../../lib/state/table.js';
import type { StepConfig } from '../../lib/platform/config.js';
import { runBatch } from '../../lib/step/batch.js';
import type { StepResult } from '../../lib/step/result.js';
import { runStep, type RunStepInput } from '../../lib/step/run-step.js';
import type { LocalDynamo } from './dynamo.js';
import { healthy, tidbCluster } from './fixtures.js';
import { TEST_STEP_CONFIG, stepHarness, type StepHarness, ENGINE_RULES } from './step-fakes.js';

const TABLE = 'tidb-reconciler-queue-semantics';
let keys = 0;

/** A world, the key its test owns, and helpers to drive it. */
export type StepWorld = StepHarness & {
  key: string;
  poller: SqsPoller;
  /** Every step run so far, in order of completion. */
  steps: StepResult[];
  /** Sends one trigger for the world's key now. */
  trigger(reason?: string): Promise<void>;
  /** Polls until nothing is visible; returns the steps this drain ran. */
  drain(): Promise<StepResult[]>;
  /** Advances virtual time in `stepMs` slices, draining after each; returns the steps run. */
  runFor(ms: number, stepMs?: number): Promise<StepResult[]>;
};

/** Settings of a world. `wrap` replaces the handler (e.g. to stage a poison message). */
export type WorldOptions = {
  config?: StepConfig;
  rules?: RunStepInput['rules'];
  visibilityTimeoutSeconds?: number;
  maxReceiveCount?: number;
  wrap?: (handler: SqsBatchHandler) => SqsBatchHandler;
};

/** Creates the state table once per server. */
export async function prepareTable(dynamo: LocalDynamo): Promise<void> {
  await ensureTable(dynamo.client, TABLE);
}

/** A fresh world on `dynamo`, with a key no other test uses. */
export function stepWorld(dynamo: LocalDynamo, options: WorldOptions = {}): StepWorld {
  const state = new DynamoStateStore(dynamo.client, { tableName: TABLE });
  const h = stepHarness(state, {
    visibilityTimeoutSeconds: options.visibilityTimeoutSeconds ?? 120,
    ...(options.maxReceiveCount === undefined ? {} : { maxReceiveCount: options.maxReceiveCount }),
  });
  const key = `eks-test/demo/basic-${++keys}`;
  // A converged cluster by default, so steps write nothing unless a test makes them.
  h.observer.cluster = () => tidbCluster(healthy());
  const steps: StepResult[] = [];
  const config = options.config ?? TEST_STEP_CONFIG;
  const step = async (input: RunStepInput): Promise<StepResult> => {
    const result = await runStep({ ...input, rules: options.rules ?? ENGINE_RULES });
    steps.push(result);
    return result;
  };
  const base: SqsBatchHandler = async (event, context): Promise<SQSBatchResponse> => {
    const remainingMs = () => context.getRemainingTimeInMillis();
    const deps = { ports: h.ports, config, invocationId: context.awsRequestId, remainingMs, step };
    return (await runBatch(event.Records, deps)).response;
  };
  const handler = options.wrap ? options.wrap(base) : base;
  // The reconcile function's timeout (serverless.yml: 60 s); no long poll, so a drain ends when idle.
  const poller = new SqsPoller({
    queue: h.queue,
    handler,
    clock: h.clock,
    waitMs: 0,
    functionTimeoutMs: 60_000,
    onError: () => undefined,
  });
  const drain = async (): Promise<StepResult[]> => {
    const before = steps.length;
    while (await poller.pollOnce()) {
      // keep polling until a receive comes back empty
    }
    return steps.slice(before);
  };
  const world: StepWorld = {
    ...h,
    key,
    poller,
    steps,
    trigger: async (reason = 'watch') => h.queue.send([{ message: message(key, reason, h.clock.nowMs()) }]),
    drain,
    runFor: async (ms, stepMs = 1_000) => {
      const before = steps.length;
      const end = h.clock.nowMs() + ms;
      await drain();
      while (h.clock.nowMs() < end) {
        await h.clock.advance(Math.min(stepMs, end - h.clock.nowMs()));
        await drain();
      }
      return steps.slice(before);
    },
  };
  return world;
}

/** A reconcile message body. */
export function message(key: string, reason: string, enqueuedAtMs: number): ReconcileMessageBody {
  return { key, reason, enqueuedAtMs };
}
