/**
 * `npm run bench`: runs every benchmark in one process, one after another, and writes
 * BENCHMARKS.md with the command, the machine and each section's numbers. Numbers from one run are
 * comparable with each other; across runs this 2-core machine is noisy.
 */
import { writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { benchApiErrors } from './api-errors.js';
import { benchBundle } from './bundle.js';
import { benchCrashStall } from './crash-stall.js';
import { benchEngine } from './engine.js';
import { benchFleet } from './fleet.js';
import { benchFullCluster } from './full-cluster.js';
import { benchNoopStep } from './noop-step.js';
import { benchTikvUpgrade } from './operations.js';
import { benchOperations, benchSteadyState } from './reconciler.js';
import { benchSimApi } from './sim-api.js';
import { benchTidbSim } from './tidb-sim.js';

type Section = { name: string; run: () => Promise<string> };

// The bundle section times child processes, so it runs before anything that keeps this process
// busy; the SimStack sections run last (see the note in benchSteadyState's section).
const SECTIONS: Section[] = [
  { name: 'simulated API server', run: benchSimApi },
  { name: 'simulated TiDB processes', run: () => benchTidbSim(1) },
  { name: 'step engine', run: benchEngine },
  { name: 'Lambda bundles and cold start', run: benchBundle },
  { name: 'the Lambda CPU of a no-op step', run: benchNoopStep },
  { name: 'reconciler steady state and simulate hour', run: benchSteadyState },
  { name: 'reconciler operations', run: benchOperations },
  { name: 'TiKV rolling upgrade', run: benchTikvUpgrade },
  { name: 'full cluster: create, upgrade, at rest', run: benchFullCluster },
  { name: 'failover under API errors', run: benchApiErrors },
  { name: 'crashed step during a scale-out', run: () => benchCrashStall() },
  // 1 000 clusters take minutes of wall time: each size gets at most 4 min to Ready and 1 min at rest.
  { name: 'simulated fleet and the 10 000-cluster sweep', run: () => benchFleet([1, 10, 100, 1000], 1, 480_000, 60_000) },
];

async function main(): Promise<void> {
  const started = new Date();
  const parts: string[] = [];
  for (const s of SECTIONS) {
    process.stderr.write(`bench: ${s.name} …\n`);
    const t0 = performance.now();
    parts.push(await s.run());
    process.stderr.write(`bench: ${s.name} done in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
  }
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  const doc = [
    '# Benchmarks',
    '',
    'Produced by `npm run bench` (bench/run.ts); every number below comes from that one run.',
    '',
    `- date: ${started.toISOString()}`,
    `- machine: ${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`,
    '',
    ...parts.flatMap((p) => [p, '']),
  ].join('\n');
  writeFileSync('BENCHMARKS.md', doc);
  process.stderr.write('bench: wrote BENCHMARKS.md\n');
  // A stopped SimStack still leaves work on the event loop (see BENCHMARKS.md), so exit explicitly.
  process.exit(0);
}

await main();
