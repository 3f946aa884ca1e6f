/**
 * The exporter's watched-until mark (lib/exporter/coverage.ts, docs/adr/0024): recorded every minute
 * while every watch is open and nothing seen is unsent, and at a clean stop; not while a watch is
 * failing, so the mark ages and the sweep steps every cluster in full.
 */
import { describe, expect, it } from '@jest/globals';

import { COVERAGE_INTERVAL_MS, COVERAGE_STALE_MS, mayHaveMissedEvents, readWatchedUntil } from '../../lib/exporter/coverage.js';
import { Exporter } from '../../lib/exporter/exporter.js';
import type { ListPage, WatchEvent, WatchRequest, WatchSource } from '../../lib/exporter/ports.js';
import { watchedResources, type WatchedResource } from '../../lib/exporter/resources.js';
import { VirtualClock, settle } from '../../lib/platform/clock.js';
import { TransientError } from '../../lib/platform/errors.js';
import { MemoryLogger } from '../../lib/platform/logger.js';
import { MemoryReconcileQueue } from '../../lib/queue/memory.js';
import { MemoryStateStore } from '../support/memory-state.js';

const TC_ONLY = watchedResources().filter((r) => r.kind === 'TidbCluster');

/** A source whose watches stay open and quiet, or (`failing`) fail at once every time. */
class QuietSource implements WatchSource {
  constructor(private readonly failing = false) {}
  async list(): Promise<ListPage> {
    return { items: [], resourceVersion: '1' };
  }
  async *watch(_resource: WatchedResource, request: WatchRequest): AsyncGenerator<WatchEvent> {
    if (this.failing) throw new TransientError('connection reset');
    request.onOpen?.();
    if (!request.signal.aborted) await new Promise((resolve) => request.signal.addEventListener('abort', resolve, { once: true }));
  }
}

async function run(failing: boolean, forMs: number) {
  const clock = new VirtualClock();
  const state = new MemoryStateStore();
  const exporter = new Exporter({ source: new QuietSource(failing), queue: new MemoryReconcileQueue({ clock }), state, clock, logger: new MemoryLogger(), random: () => 0 }, { k8sCluster: 'eks', resources: TC_ONLY });
  const t0 = clock.nowMs();
  exporter.start();
  for (let i = 0; i < 50; i++) await settle();
  await clock.advance(forMs);
  for (let i = 0; i < 50; i++) await settle();
  const running = await readWatchedUntil(state, 'eks');
  await exporter.stop();
  return { t0, running, stopped: await readWatchedUntil(state, 'eks'), now: clock.nowMs() };
}

describe("the exporter's watched-until mark", () => {
  it('is recorded every minute while every watch is open, and at a clean stop', async () => {
    const { t0, running, stopped, now } = await run(false, 2 * COVERAGE_INTERVAL_MS + 1_000);
    expect(running).toBe(t0 + 2 * COVERAGE_INTERVAL_MS);
    expect(stopped).toBe(now);
  });

  it('is not recorded while a watch keeps failing', async () => {
    const { running, stopped } = await run(true, 2 * COVERAGE_INTERVAL_MS + 1_000);
    expect([running, stopped]).toEqual([undefined, undefined]);
  });

  it.each([
    { name: 'no mark', mark: undefined, missed: true },
    { name: 'a mark older than three minutes', mark: -COVERAGE_STALE_MS - 1, missed: true },
    { name: 'a mark three minutes old', mark: -COVERAGE_STALE_MS, missed: false },
    { name: 'a fresh mark', mark: -1_000, missed: false },
  ])('events may have been missed with $name: $missed', ({ mark, missed }) => {
    const now = 1_000_000_000;
    expect(mayHaveMissedEvents(mark === undefined ? undefined : now + mark, now)).toBe(missed);
  });
});
