/**
 * What a full cluster at rest costs the API server (issue 30: ≤ 20 requests per cluster-hour from
 * the steps and the sweep, status never staler than 30 s). The story creates the cluster, lets it
 * settle, then rests one virtual hour; every request the functions send to the API server in that
 * hour is counted (the simulated exporter reads the store directly, and the story's own kubectl
 * verbs all come before the hour).
 */
import { describe, expect, it } from '@jest/globals';

import type { SimStack } from '../../lib/local/sim-stack.js';
import { runStoryAndInspect } from '../support/story.js';

const HOUR_MS = 3_600_000;

/** One request the API server served: when, and its method and path. */
type Seen = { readonly atMs: number; readonly method: string; readonly path: string };

/** Records every request the stack's API server serves from now on. */
function recordRequests(stack: SimStack, into: Seen[]): void {
  const server = stack.world.server;
  const previous = server.requestHook;
  server.requestHook = (method, path) => {
    into.push({ atMs: stack.clock.nowMs(), method, path });
    return previous?.(method, path);
  };
}

/** `METHOD /path` with names kept, counted. */
function tally(seen: readonly Seen[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of seen) out[`${s.method} ${s.path}`] = (out[`${s.method} ${s.path}`] ?? 0) + 1;
  return out;
}

describe('a full cluster at rest', () => {
  it('costs the API server at most 20 requests per cluster-hour', async () => {
    const seen: Seen[] = [];
    const { report, seen: inHour } = await runStoryAndInspect('../fixtures/stories/full-cluster-at-rest.yaml', {
      inspect: async (stack) => {
        const endMs = stack.clock.nowMs();
        return seen.filter((s) => s.atMs > endMs - HOUR_MS);
      },
      onStart: (stack) => recordRequests(stack, seen),
    });
    expect(report.passed).toBe(true);
    const hour = inHour ?? [];
    console.log(hour.length, tally(hour));
    expect(hour.length).toBeLessThanOrEqual(20);
  }, 600_000);
});
