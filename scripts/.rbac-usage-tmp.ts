import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseScenario } from '../lib/local/scenario/file.js';
import { createProgress } from '../lib/local/scenario/progress.js';
import { SimStack } from '../lib/local/sim-stack.js';
import { runScenario } from '../lib/local/simulate.js';
const files = process.argv.slice(2);
const usage = new Map<string, Set<string>>();
for (const f of files) {
  const t = Date.now();
  const p = parseScenario(readFileSync(join('test/scenarios', f), 'utf8'), f);
  if (!p.ok) throw new Error(p.error);
  const stack = await SimStack.start(p.scenario, 1);
  const run = await runScenario(stack, createProgress({ quiet: true }));
  for (const [u, s] of stack.world.gate!.usage) { const k = u.replace(/.*\//, ''); const x = usage.get(k) ?? new Set(); s.forEach((v) => x.add(v)); usage.set(k, x); }
  console.error(f, run.passed, Date.now() - t, 'ms', stack.world.gate!.denials.slice(0, 3).map((d) => d.message));
  await stack.stop();
}
for (const [u, s] of usage) console.log(u, [...s].sort().join('\n  '));
process.exit(0);
