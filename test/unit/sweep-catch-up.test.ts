/**
 * The sweep beside an exporter that catches up (docs/adr/0030): its watched-until mark, written once
 * a period, carries its own staleness, so between catch-ups the sweep keeps checking cheaply (events
 * are delayed, not missed) and still sees a TidbCluster's new generation in its LIST; past a period
 * and three minutes the exporter is taken as stopped and every cluster is read in full.
 */
import { describe, expect, it } from '@jest/globals';

import { COVERAGE_STALE_MS, mayHaveMissedEvents, parseWatchedUntil, type WatchedUntil } from '../../lib/exporter/coverage.js';
import { coverageStaleMs } from '../../lib/exporter/at-rest.js';
import type { StateRecord } from '../../lib/state/port.js';
import { sweepChoice } from '../../lib/step/sweep-rest.js';

const NOW = Date.UTC(2026, 0, 1, 12);
const MIN = 60_000;
const HOUR = 60 * MIN;
const PERIOD_MS = 15 * MIN;
const CATCH_UP = coverageStaleMs('catch-up', PERIOD_MS);

/** A TidbCluster at rest: read in full an hour ago, a health check pending. */
const state: StateRecord = {
  key: 'eks/demo/basic',
  fence: 3,
  lease: undefined,
  dirty: false,
  failures: 0,
  nextWakeAtMs: undefined,
  lastStep: { atMs: NOW - 20_000, outcome: 'complete', verified: { uid: 'u1', generation: 2, fullAtMs: NOW - HOUR }, healthAtMs: NOW + 10_000 },
};

describe('the sweep beside a catching-up exporter', () => {
  it.each([
    { name: 'a catch-up mark 14 minutes old: at rest, nothing', mark: { atMs: NOW - 14 * MIN, staleMs: CATCH_UP }, generation: 2, want: { kind: 'none' } },
    { name: 'a catch-up mark a period and three minutes old: at rest still', mark: { atMs: NOW - CATCH_UP, staleMs: CATCH_UP }, generation: 2, want: { kind: 'none' } },
    { name: 'a catch-up mark older than that: the exporter stopped, full with a re-check', mark: { atMs: NOW - CATCH_UP - 1, staleMs: CATCH_UP }, generation: 2, want: { kind: 'full', checkTidbOperator: true } },
    { name: "a user's edit between catch-ups (new generation in the LIST): full at this sweep", mark: { atMs: NOW - 14 * MIN, staleMs: CATCH_UP }, generation: 3, want: { kind: 'full' } },
    { name: 'a watching mark 14 minutes old: stale, full with a re-check', mark: NOW - 14 * MIN, generation: 2, want: { kind: 'full', checkTidbOperator: true } },
  ] as { name: string; mark: number | WatchedUntil; generation: number; want: object }[])('$name', ({ mark, generation, want }) => {
    const choice = sweepChoice({ key: state.key, state, listed: { uid: 'u1', generation }, nowMs: NOW, watchedUntilMs: mark, config: { fullReadIntervalMs: 3 * HOUR, fullReadSpreadMs: 0 } });
    expect(choice).toEqual(want);
  });

  it.each([
    { name: 'a bare time: the watching staleness', text: '1767268800000', want: { atMs: 1767268800000, staleMs: COVERAGE_STALE_MS } },
    { name: 'a time with its staleness', text: '1767268800000;stale=1080000', want: { atMs: 1767268800000, staleMs: 1_080_000 } },
    { name: 'no mark', text: undefined, want: undefined },
    { name: 'not a time', text: 'soon', want: undefined },
    { name: 'a staleness that is not a number', text: '1767268800000;stale=long', want: undefined },
  ])('the stored mark reads: $name', ({ text, want }) => {
    expect(parseWatchedUntil(text)).toEqual(want);
  });

  it.each([
    { name: 'no mark', mark: undefined, missed: true },
    { name: 'a bare time within three minutes', mark: NOW - COVERAGE_STALE_MS, missed: false },
    { name: 'a bare time past three minutes', mark: NOW - COVERAGE_STALE_MS - 1, missed: true },
    { name: 'a catch-up mark within its staleness', mark: { atMs: NOW - CATCH_UP, staleMs: CATCH_UP }, missed: false },
    { name: 'a catch-up mark past its staleness', mark: { atMs: NOW - CATCH_UP - 1, staleMs: CATCH_UP }, missed: true },
  ] as { name: string; mark: number | WatchedUntil | undefined; missed: boolean }[])('events may have been missed: $name', ({ mark, missed }) => {
    expect(mayHaveMissedEvents(mark, NOW)).toBe(missed);
  });
});
