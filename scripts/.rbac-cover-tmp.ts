import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseScenario } from '../lib/local/scenario/file.js';
import { createProgress } from '../lib/local/scenario/progress.js';
import { SimStack } from '../lib/local/sim-stack.js';
import { runScenario } from '../lib/local/simulate.js';
const per: [string, Set<string>, number][] = [];
for (const f of process.argv.slice(2)) {
  const t = Date.now();
  const p = parseScenario(readFileSync(join('test/scenarios', f), 'utf8'), f);
  if (!p.ok) throw new Error(p.error);
  const stack = await SimStack.start(p.scenario, 1);
  await runScenario(stack, createProgress({ quiet: true }));
  const s = new Set<string>();
  for (const [, u] of stack.world.gate!.usage) u.forEach((v) => s.add(v));
  per.push([f, s, Date.now() - t]);
  await stack.stop();
}
const all = new Set(per.flatMap(([, s]) => [...s]));
const chosen: string[] = []; const covered = new Set<string>();
while (covered.size < all.size) {
  per.sort((a, b) => [...b[1]].filter((x) => !covered.has(x)).length / (b[2] + 500) - [...a[1]].filter((x) => !covered.has(x)).length / (a[2] + 500));
  const [f, s, ms] = per.shift()!; chosen.push(`${f} ${ms}`); s.forEach((x) => covered.add(x));
}
console.log(chosen.join('\n'));
process.exit(0);
