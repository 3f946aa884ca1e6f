/**
 * The step engine's own cost per step, with every port in memory (no network, no disk): claim,
 * observe, decide, commit, the log line and the metrics. Target: ≤ 5 ms per step.
 *
 *   npx tsx bench/engine.ts
 */
import { runStep } from '../lib/step/run-step.js';
import { KEY, healthy, tidbCluster } from '../test/support/fixtures.js';
import { MemoryStateStore } from '../test/support/memory-state.js';
import { TEST_STEP_CONFIG, stepHarness } from '../test/support/step-fakes.js';
import { table } from './stats.js';

/** Mean milliseconds per step over `count` steps, after `warmup` unmeasured ones. */
async function meanStepMs(changed: boolean, count: number, warmup: number): Promise<number> {
  const h = stepHarness(new MemoryStateStore());
  const healthyCluster = tidbCluster(healthy());
  // A changed cluster (no status yet) plans and writes a status on every step; a healthy one does nothing.
  h.observer.cluster = changed ? () => tidbCluster() : () => healthyCluster;
  let i = 0;
  const once = () => runStep({ key: KEY, trigger: { reason: 'watch', enqueuedAtMs: h.clock.nowMs() }, owner: `o${++i}`, ports: h.ports, config: TEST_STEP_CONFIG, budgetMs: 60_000 });
  for (let w = 0; w < warmup; w++) await once();
  const start = performance.now();
  for (let n = 0; n < count; n++) await once();
  return (performance.now() - start) / count;
}

/** Runs the engine benchmark and returns its Markdown section. */
export async function benchEngine(): Promise<string> {
  const unchanged = await meanStepMs(false, 5000, 500);
  const changed = await meanStepMs(true, 5000, 500);
  return [
    '### Step engine overhead (all ports in memory, 5000 steps after 500 warm-up)',
    '',
    table(['cluster', 'mean ms per step', 'target'], [
      ['healthy, unchanged', unchanged.toFixed(4), '≤ 5 ms'],
      ['status changes every step', changed.toFixed(4), '≤ 5 ms'],
    ]),
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchEngine());
}
