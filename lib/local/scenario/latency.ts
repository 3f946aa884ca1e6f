/**
 * `sim.latency`: the delivery latency model (lib/local/latency.ts). Left out or `true`, the deployed
 * model; `false`, none; a mapping tunes it, each field left out keeping its deployed value.
 */
import { DEFAULT_LATENCY, EXPORTER_SESSION_PERIOD_MS, type LatencyModel, ZERO_LATENCY } from '../latency.js';
import { describeValue, expectMapping, FieldError, isMapping, readDuration, rejectUnknownFields } from './reader.js';

/** The fields a `sim.latency` mapping accepts. */
export const LATENCY_FIELDS = ['batchingWindow', 'step', 'coldStart', 'exporterGap'] as const;

/** Lambda's largest SQS batching window (300 s). */
const MAX_BATCHING_WINDOW_MS = 300_000;

/** Reads `sim.latency` (see the module comment). */
export function readLatency(raw: unknown): LatencyModel {
  const path = ['sim', 'latency'];
  if (raw === undefined || raw === true) return DEFAULT_LATENCY;
  if (raw === false) return ZERO_LATENCY;
  if (!isMapping(raw)) throw new FieldError(path, `expected true, false or a mapping of ${LATENCY_FIELDS.join(', ')}, got ${describeValue(raw)}`);
  const map = expectMapping(raw, path);
  rejectUnknownFields(map, path, LATENCY_FIELDS);
  const duration = (key: (typeof LATENCY_FIELDS)[number], fallback: number): number => (key in map ? readDuration(map[key], [...path, key]) : fallback);
  const model: LatencyModel = {
    batchingWindowMs: duration('batchingWindow', DEFAULT_LATENCY.batchingWindowMs),
    stepMs: duration('step', DEFAULT_LATENCY.stepMs),
    coldStartMs: duration('coldStart', DEFAULT_LATENCY.coldStartMs),
    exporterGapMs: duration('exporterGap', DEFAULT_LATENCY.exporterGapMs),
  };
  // Lambda takes the window in whole seconds, 0–300 (API_CreateEventSourceMapping).
  if (model.batchingWindowMs % 1000 !== 0 || model.batchingWindowMs > MAX_BATCHING_WINDOW_MS) {
    throw new FieldError([...path, 'batchingWindow'], `must be whole seconds from 0s to 300s, as Lambda takes it, got ${model.batchingWindowMs} ms`);
  }
  if (model.exporterGapMs >= EXPORTER_SESSION_PERIOD_MS) {
    throw new FieldError([...path, 'exporterGap'], `must be less than the exporter's ${EXPORTER_SESSION_PERIOD_MS / 60_000}-minute schedule, got ${model.exporterGapMs} ms`);
  }
  return model;
}
