/**
 * What a full cluster at rest costs the API server (issue 30, docs/adr/0024: at most 20 requests per
 * cluster-hour from the steps and the sweep, status never staler than 30 s). The story creates the
 * cluster (PD 3, TiKV 3, TiDB 2, TiFlash 1, TiCDC 2, Pump 1), lets it settle, rests one virtual hour
 * — every request the functions send to the API server in that hour is counted (the simulated
 * exporter reads the store directly; the story's own verbs all come before or after it), as are the
 * steps (a health step every 30 s or so) — and then checks that a change no Kubernetes event
 * announces (PD's API down) reaches status within 40 s. Once in one warm process, once with every
 * invocation in a fresh container: a health step then takes the step before's read from the state
 * table (lib/state/rest-reads.ts) and still asks the API server nothing.
 */
import { describe, expect, it } from '@jest/globals';

import type { SimStack } from '../../lib/local/sim-stack.js';
import { runStoryAndInspect } from '../support/story.js';

const STORY = '../fixtures/stories/full-cluster-at-rest.yaml';
/** The story's entry that rests one hour. */
const REST_ENTRY = 2;

/** One request the API server served: when (ms since the story's start), and its method and path. */
type Seen = { readonly atMs: number; readonly method: string; readonly path: string };

/** Records every request the stack's API server serves from now on, timed from now. */
function recordRequests(stack: SimStack, into: Seen[]): void {
  const t0 = stack.clock.nowMs();
  const server = stack.world.server;
  const previous = server.requestHook;
  server.requestHook = (method, path) => {
    into.push({ atMs: stack.clock.nowMs() - t0, method, path });
    return previous?.(method, path);
  };
}

/** The stack's claimed steps so far, sampled every minute (ms since the story's start). */
type Sample = { readonly atMs: number; readonly steps: number };

function sampleSteps(stack: SimStack, into: Sample[]): void {
  const t0 = stack.clock.nowMs();
  const tick = (): void => {
    into.push({ atMs: stack.clock.nowMs() - t0, steps: stack.steps });
    stack.clock.setTimer(tick, 60_000);
  };
  tick();
}

/** `METHOD /path`, counted. */
function tally(seen: readonly Seen[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of seen) out[`${s.method} ${s.path}`] = (out[`${s.method} ${s.path}`] ?? 0) + 1;
  return out;
}

describe('a full cluster at rest', () => {
  it.each([
    { name: 'in one warm process', cold: false },
    { name: 'with every step in a fresh container (nothing kept in process memory)', cold: true },
  ])('costs the API server at most 20 requests in an hour, and its status follows PD within 40 s: $name', async ({ cold }) => {
    // Prepare
    const seen: Seen[] = [];
    const samples: Sample[] = [];
    // Act
    const { report } = await runStoryAndInspect(STORY, {
      onStart: (stack) => {
        if (cold) stack.everyInvocationCold();
        recordRequests(stack, seen);
        sampleSteps(stack, samples);
      },
    });
    // Assess
    expect(report.timeline.map((e) => e.error ?? 'ok')).toEqual(report.timeline.map(() => 'ok'));
    expect(report.passed).toBe(true);
    const rest = report.timeline[REST_ENTRY];
    expect(rest?.verb).toBe('advance');
    const hour = seen.filter((s) => rest !== undefined && s.atMs > rest.startMs && s.atMs <= rest.endMs);
    expect(rest && rest.endMs - rest.startMs).toBe(3_600_000);
    // The sweep's LIST of TidbClusters every 5 minutes; no step of the hour asks the API server anything.
    expect(tally(hour)).toEqual({ 'GET /apis/pingcap.com/v1alpha1/tidbclusters': 12 });
    expect(hour.length).toBeLessThanOrEqual(20);
    // Yet the cluster was looked at every 30 s: about two health steps a minute through the hour.
    const inHour = samples.filter((x) => rest !== undefined && x.atMs >= rest.startMs && x.atMs <= rest.endMs);
    const first = inHour[0];
    const last = inHour.at(-1);
    const minutes = first && last ? (last.atMs - first.atMs) / 60_000 : 0;
    expect(minutes).toBeGreaterThanOrEqual(58);
    const perMinute = first && last ? (last.steps - first.steps) / minutes : 0;
    expect(perMinute).toBeGreaterThanOrEqual(1.8);
    expect(perMinute).toBeLessThanOrEqual(2.05);
  }, 600_000);

  it('with every step in a fresh container and no read kept in the state table, a health step asks the API server again (what the kept read saves)', async () => {
    // Prepare
    const seen: Seen[] = [];
    // Act
    const { report } = await runStoryAndInspect(STORY, {
      onStart: (stack) => {
        stack.everyInvocationCold(({ restReads: _none, ...runtime }) => runtime);
        recordRequests(stack, seen);
      },
    });
    // Assess: the TidbCluster read by ~120 health steps in the hour, not by the sweep's 12 LISTs alone
    const rest = report.timeline[REST_ENTRY];
    const hour = seen.filter((s) => rest !== undefined && s.atMs > rest.startMs && s.atMs <= rest.endMs);
    expect(report.passed).toBe(true);
    expect(tally(hour)['GET /apis/pingcap.com/v1alpha1/namespaces/demo/tidbclusters/basic']).toBeGreaterThanOrEqual(100);
    expect(hour.length).toBeGreaterThan(1_000);
  }, 600_000);
});
