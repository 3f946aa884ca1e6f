/**
 * The delivery latency model (lib/local/latency.ts): its numbers agree with what ships
 * (serverless.yml), `sim.latency` is read as docs/SCENARIOS.md says, the virtual event source
 * gathers for the batching window and spends the cold start and the steps' time, and the exporter
 * runs one session a period, a change in the gap arriving with the next session.
 */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SQSEvent } from 'aws-lambda';
import { watchedResources } from '../../lib/exporter/resources.js';
import { ScheduledExporterSessions } from '../../lib/local/exporter-sessions.js';
import { DEFAULT_LATENCY, DEPLOYED_BATCHING_WINDOW_SECONDS, EXPORTER_SESSION_PERIOD_MS, ZERO_LATENCY } from '../../lib/local/latency.js';
import { readLatency } from '../../lib/local/scenario/latency.js';
import { FieldError } from '../../lib/local/scenario/reader.js';
import { StoreWatchSource } from '../../lib/local/store-watch-source.js';
import { VirtualEventSource } from '../../lib/local/virtual-delivery.js';
import { EXPORTER_DEFAULTS } from '../../lib/exporter/config.js';
import { VirtualClock, settle } from '../../lib/platform/clock.js';
import { MemoryLogger } from '../../lib/platform/logger.js';
import { MemoryReconcileQueue } from '../../lib/queue/memory.js';
import { ObjectStore } from '../../lib/sim/store.js';
import { MemoryStateStore } from '../support/memory-state.js';

const SERVERLESS = readFileSync(join(import.meta.dirname, '..', '..', 'serverless.yml'), 'utf8');
const KEY = (name: string): string => `eks/demo/${name}`;
const body = (key: string): { key: string; reason: string; enqueuedAtMs: number } => ({ key, reason: 'watch', enqueuedAtMs: 0 });

describe('the latency model agrees with what ships', () => {
  it.each([
    ['the batching window', /reconcileBatchingWindowSeconds: (\d+)/, String(DEPLOYED_BATCHING_WINDOW_SECONDS)],
    ['the memory the CPU scaling assumes', /memorySize: (\d+)/, '512'],
    ['the exporter schedule', /exporterSessionMinutes: (\d+)/, String(EXPORTER_SESSION_PERIOD_MS / 60_000)],
    ['the exporter schedule reads the session length', /exporter:[\s\S]*?rate: rate\((\$\{param:exporterSessionMinutes\}) minutes\)/, '${param:exporterSessionMinutes}'],
    ['the exporter timeout', /exporter:[\s\S]*?timeout: (\d+)/, String(EXPORTER_SESSION_PERIOD_MS / 1000)],
  ])('%s', (_what, pattern, expected) => {
    expect(pattern.exec(SERVERLESS)?.[1]).toBe(expected);
  });

  it('the exporter gap is the Lambda session safety margin', () => {
    expect(DEFAULT_LATENCY.exporterGapMs).toBe(EXPORTER_DEFAULTS.safetyMarginMs);
  });
});

describe('sim.latency', () => {
  it.each([
    ['left out', undefined, DEFAULT_LATENCY],
    ['true', true, DEFAULT_LATENCY],
    ['false', false, ZERO_LATENCY],
    ['a partial mapping', { step: '250ms', exporterGap: '0s' }, { ...DEFAULT_LATENCY, stepMs: 250, exporterGapMs: 0 }],
    ['every field', { batchingWindow: '2s', step: '0s', coldStart: '1s', exporterGap: '5s' }, { batchingWindowMs: 2000, stepMs: 0, coldStartMs: 1000, exporterGapMs: 5000 }],
  ])('%s', (_what, raw, expected) => {
    expect(readLatency(raw)).toEqual(expected);
  });

  it.each([
    ['a string', 'off', 'sim.latency'],
    ['an unknown field', { batchWindow: '1s' }, 'sim.latency.batchWindow'],
    ['a sub-second window', { batchingWindow: '500ms' }, 'sim.latency.batchingWindow'],
    ['a window over 300 s', { batchingWindow: '301s' }, 'sim.latency.batchingWindow'],
    ['a gap of a whole session', { exporterGap: '15m' }, 'sim.latency.exporterGap'],
    ['a bare number', { step: 100 }, 'sim.latency.step'],
  ])('refuses %s, naming the field', (_what, raw, field) => {
    let error: unknown;
    try {
      readLatency(raw);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(FieldError);
    expect((error as FieldError).path.join('.')).toBe(field);
  });
});

/** A queue, an event source over it with the model's timing, and what was invoked when. */
function delivery(model = DEFAULT_LATENCY) {
  const clock = new VirtualClock(0);
  const queue = new MemoryReconcileQueue({ clock, random: () => 0 });
  const invoked: { atMs: number; keys: string[] }[] = [];
  const pass = (ms: number): Promise<void> => clock.advance(ms);
  const source = new VirtualEventSource(
    queue,
    async (event: SQSEvent) => {
      invoked.push({ atMs: clock.nowMs(), keys: event.Records.map((r) => (JSON.parse(r.body) as { key: string }).key).sort() });
      return { batchItemFailures: [] };
    },
    clock,
    undefined,
    { ...model, visibleCount: () => queue.stats().visible, pass },
  );
  /** Runs delivery as `simulate` does: deliver, then move the clock to the next thing due. */
  const runTo = async (endMs: number): Promise<void> => {
    for (;;) {
      await source.deliverDue();
      const next = [clock.nextTimerAtMs(), source.nextDueAtMs() ?? queue.nextVisibleAtMs()].filter((x): x is number => x !== undefined && x > clock.nowMs());
      const to = Math.min(endMs, ...next);
      if (to <= clock.nowMs()) return;
      await clock.advanceTo(to);
    }
  };
  return { clock, queue, invoked, runTo };
}

describe('the virtual event source with the latency model', () => {
  it('gathers a batch for the window, pays the cold start once and lasts its steps', async () => {
    // Prepare: two keys now, one more half a second later (within the window), one after the first batch.
    const d = delivery();
    await d.queue.send([{ message: body(KEY('a')) }, { message: body(KEY('b')) }]);
    d.clock.setTimer(() => void d.queue.send([{ message: body(KEY('c')) }]), 500);
    d.clock.setTimer(() => void d.queue.send([{ message: body(KEY('d')) }]), 3_000);

    // Act
    await d.runTo(10_000);

    // Assert: the first batch at the window's end + the cold start, with all three keys; it lasts
    // three steps (1.6 s + 0.3 s); the next one gathers from 3 s and runs warm at 4 s.
    expect(d.invoked).toEqual([
      { atMs: 1_000 + 600, keys: [KEY('a'), KEY('b'), KEY('c')] },
      { atMs: 4_000, keys: [KEY('d')] },
    ]);
    expect(d.queue.stats()).toMatchObject({ visible: 0, inFlight: 0 });
  });

  it('a full batch goes at once, without waiting for the window', async () => {
    const d = delivery({ ...DEFAULT_LATENCY, coldStartMs: 0 });
    await d.queue.send(Array.from({ length: 10 }, (_, i) => ({ message: body(KEY(`c${i}`)) })));

    await d.runTo(5_000);

    expect(d.invoked.map((i) => [i.atMs, i.keys.length])).toEqual([[0, 10]]);
  });

  it('without latency a message is delivered the instant it is visible', async () => {
    const d = delivery(ZERO_LATENCY);
    d.clock.setTimer(() => void d.queue.send([{ message: body(KEY('a')) }]), 2_500);

    await d.runTo(5_000);

    expect(d.invoked).toEqual([{ atMs: 2_500, keys: [KEY('a')] }]);
  });
});

describe('the exporter as one Lambda session a minute', () => {
  it('a change in the gap between sessions reaches the queue when the next session starts', async () => {
    // Prepare: the run starts 20 s into a session; sessions start at −20 s, 40 s, 100 s and watch
    // 50 s each, so no one watches from 30 s to 40 s.
    const clock = new VirtualClock(0);
    const store = new ObjectStore(clock);
    store.create('Namespace', { metadata: { name: 'demo' } });
    const queue = new MemoryReconcileQueue({ clock, random: () => 0 });
    const resources = watchedResources().filter((r) => r.kind === 'Pod');
    const sessions = new ScheduledExporterSessions(
      { source: new StoreWatchSource(store), queue, state: new MemoryStateStore(), clock, logger: new MemoryLogger(), random: () => 0 },
      { k8sCluster: 'eks', resources, flushWindowMs: 1_000, checkpointIntervalMs: 0 },
      { periodMs: 60_000, gapMs: 10_000, phaseMs: 20_000 },
    );
    const sentAt: { key: string; atMs: number }[] = [];
    const send = queue.send.bind(queue);
    queue.send = async (messages) => {
      for (const m of messages) sentAt.push({ key: m.message.key, atMs: clock.nowMs() });
      return send(messages);
    };
    const pod = (instance: string): void =>
      void store.create('Pod', { metadata: { name: `${instance}-pd-0`, namespace: 'demo', labels: { 'app.kubernetes.io/managed-by': 'tidb-operator', 'app.kubernetes.io/instance': instance } }, spec: { containers: [{ name: 'pd', image: 'pingcap/pd' }] } });
    clock.setTimer(() => pod('early'), 10_000);
    clock.setTimer(() => pod('gap'), 32_000);
    sessions.start();

    // Act: drive the clock second by second, letting the exporter's promises run.
    for (let t = 0; t < 45_000; t += 500) {
      for (let i = 0; i < 20; i++) await settle();
      await clock.advance(500);
    }
    await sessions.stop();

    // Assert
    const first = (name: string): number | undefined => sentAt.find((s) => s.key === `eks/demo/${name}`)?.atMs;
    expect(first('early')).toBeLessThanOrEqual(11_500);
    expect(first('gap')).toBeGreaterThanOrEqual(40_000);
    expect(first('gap')).toBeLessThanOrEqual(41_500);
    expect(sessions.sessions).toBe(2);
  });

  it.each([
    [{ periodMs: 60_000, gapMs: 60_000, phaseMs: 0 }],
    [{ periodMs: 60_000, gapMs: 10_000, phaseMs: 60_000 }],
    [{ periodMs: 0, gapMs: 0, phaseMs: 0 }],
  ])('refuses the schedule %j', (schedule) => {
    const clock = new VirtualClock(0);
    const deps = { source: new StoreWatchSource(new ObjectStore(clock)), queue: new MemoryReconcileQueue({ clock }), state: new MemoryStateStore(), clock, logger: new MemoryLogger() };
    expect(() => new ScheduledExporterSessions(deps, { k8sCluster: 'eks', resources: [] }, schedule)).toThrow(RangeError);
  });
});
