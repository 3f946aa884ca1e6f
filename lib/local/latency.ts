/**
 * The delivery latency of the deployed stack, as the simulated stack models it (`sim.latency` of a
 * scenario; on unless a scenario turns it off). What ships takes time between a change in the
 * cluster and the step that answers it:
 *
 * - Lambda's SQS event source mapping gathers records for up to `maximumBatchingWindow` before it
 *   invokes the function, unless a full batch (10) is at hand first (serverless.yml,
 *   `reconcileBatchingWindowSeconds`: 1; "The maximum amount of time, in seconds, that Lambda spends
 *   gathering records before invoking the function", Lambda API reference,
 *   https://docs.aws.amazon.com/lambda/latest/api/API_CreateEventSourceMapping.html).
 * - SQS delays are whole seconds (`DelaySeconds`, an integer 0–900,
 *   https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_SendMessage.html); the
 *   queue already rounds a sub-second delay up (lib/queue/port.ts `normaliseDelaySeconds`), and
 *   Scheduler fires at the minute (lib/timer/memory-scheduler.ts), so nothing here adds to them.
 * - A step takes time, and a container's first invocation first runs its init (cold start): the
 *   measured numbers are below, at `DEFAULT_LATENCY`.
 * - The exporter runs as one Lambda session every 15 minutes (serverless.yml `rate(15 minutes)`,
 *   timeout 900 s), each watching for its time less `EXPORTER_SAFETY_MARGIN_MS` (10 s): no one
 *   watches for the rest of the period, and changes made then arrive when the next session resumes
 *   from its checkpoint.
 */

/** The latency model's numbers; every one may be 0. */
export type LatencyModel = {
  /** How long the event source mapping gathers records before it invokes the function (10 records end it sooner). */
  readonly batchingWindowMs: number;
  /** How long one step takes (keys of a batch share the container's CPU, so a batch takes this per key). */
  readonly stepMs: number;
  /** A container's first invocation: the function's init before the handler runs. */
  readonly coldStartMs: number;
  /**
   * The part of each session's period no exporter session watches (its safety margin); 0 runs the exporter
   * without a break, as `npm start`'s daemon and the zero-latency model do.
   */
  readonly exporterGapMs: number;
};

/** serverless.yml's `custom.reconcileBatchingWindowSeconds` (a test holds the two equal). */
export const DEPLOYED_BATCHING_WINDOW_SECONDS = 1;

/** The exporter's schedule (serverless.yml: `rate(15 minutes)`, `exporterSessionMinutes`; its function timeout 900 s). */
export const EXPORTER_SESSION_PERIOD_MS = 900_000;

/**
 * The latency model as deployed. `stepMs` and `coldStartMs` come from measurements on a 2-core AMD
 * EPYC at full CPU, scaled to the CPU Lambda gives the functions' 512 MB (serverless.yml
 * `memorySize`; "At 1,769 MB, a function has the equivalent of one vCPU",
 * https://docs.aws.amazon.com/lambda/latest/dg/configuration-memory.html, so 512 MB ≈ 0.29 vCPU):
 *
 * - a step: the real reconcile handler in `simulate` took 42 ms per step at the median and 105 ms at
 *   p90 (194 steps of pd-create-ready, cluster-full-upgrade, tikv-rolling-upgrade and pd-failover,
 *   wall time, the simulated API server and PD answering in the same process); about half of it
 *   is the handler's own CPU, which at 0.29 vCPU takes 3.5 times as long: 21 + 21 × 3.5 ≈ 100 ms.
 * - a cold start: BENCHMARKS.md's reconcile bundle, import 85 ms + first invocation 91 ms = 176 ms
 *   of CPU, × 3.5 ≈ 600 ms (Lambda's own sandbox start-up comes on top and is not counted).
 */
export const DEFAULT_LATENCY: LatencyModel = {
  batchingWindowMs: DEPLOYED_BATCHING_WINDOW_SECONDS * 1000,
  stepMs: 100,
  coldStartMs: 600,
  exporterGapMs: 10_000,
};

/** No latency: messages are delivered as they become visible, steps take no time, the exporter never stops. */
export const ZERO_LATENCY: LatencyModel = { batchingWindowMs: 0, stepMs: 0, coldStartMs: 0, exporterGapMs: 0 };

/** Whether `model` adds no time anywhere. */
export function isZeroLatency(model: LatencyModel): boolean {
  return model.batchingWindowMs === 0 && model.stepMs === 0 && model.coldStartMs === 0 && model.exporterGapMs === 0;
}
