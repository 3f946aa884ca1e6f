/**
 * `npm run bench`: runs every benchmark in one process, one after another, and writes
 * BENCHMARKS.md with the command, the machine and each section's numbers. Numbers from one run are
 * comparable with each other; across runs this 2-core machine is noisy.
 * `npm run bench -- --only ID,ID` runs only those sections (ids below) in one process and replaces
 * just their text in BENCHMARKS.md, saying which sections came from which run.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { benchApiErrors } from './api-errors.js';
import { benchAtRestLoad } from './at-rest-load.js';
import { benchBundle } from './bundle.js';
import { benchCrashStall } from './crash-stall.js';
import { benchCostModel } from './cost-model.js';
import { benchEngine } from './engine.js';
import { benchExporterMemory } from './exporter-memory.js';
import { benchFleet } from './fleet.js';
import { benchFleetSweep } from './fleet-sweep.js';
import { benchFullCluster } from './full-cluster.js';
import { goalsSection, recordedGoals } from './goals.js';
import { benchNoopStep } from './noop-step.js';
import { benchTikvUpgrade } from './operations.js';
import { benchOperations, benchSteadyState } from './reconciler.js';
import { benchSimApi } from './sim-api.js';
import { benchTidbSim } from './tidb-sim.js';

type Section = { id: string; name: string; run: () => Promise<string> };

// The bundle section times child processes, so it runs before anything that keeps this process
// busy; the SimStack sections run last (see the note in benchSteadyState's section).
const SECTIONS: Section[] = [
  { id: 'sim-api', name: 'simulated API server', run: benchSimApi },
  { id: 'tidb-sim', name: 'simulated TiDB processes', run: () => benchTidbSim(1) },
  { id: 'engine', name: 'step engine', run: benchEngine },
  { id: 'bundle', name: 'Lambda bundles and cold start', run: benchBundle },
  { id: 'noop-step', name: 'the Lambda CPU of a no-op step', run: benchNoopStep },
  { id: 'steady-state', name: 'reconciler steady state and simulate hour', run: benchSteadyState },
  { id: 'operations', name: 'reconciler operations', run: benchOperations },
  { id: 'tikv-upgrade', name: 'TiKV rolling upgrade', run: benchTikvUpgrade },
  { id: 'full-cluster', name: 'full cluster: create, upgrade, at rest', run: benchFullCluster },
  { id: 'api-errors', name: 'failover under API errors', run: benchApiErrors },
  { id: 'crash-stall', name: 'crashed step during a scale-out', run: () => benchCrashStall() },
  { id: 'cost-model', name: 'cost model: a month in AWS list prices', run: benchCostModel },
  { id: 'exporter-memory', name: "the exporter's memory in a session", run: benchExporterMemory },
  { id: 'at-rest-load', name: 'load at rest: requests per cluster-hour and the sweep at 10 000 clusters', run: benchAtRestLoad },
  // 1 000 clusters take minutes of wall time: each size gets at most 4 min to Ready and 1 min at rest.
  { id: 'fleet-sweep', name: 'the sweep of 10 000 real-size clusters at rest, before → after', run: () => benchFleetSweep(10_000) },
  { id: 'fleet', name: 'simulated fleet', run: () => benchFleet([1, 10, 100, 1000], 1, 480_000, 60_000) },
];

/** The sections `--only` names (comma-separated ids), or every section. */
function chosenSections(argv: readonly string[]): Section[] {
  const at = argv.indexOf('--only');
  if (at < 0) return SECTIONS;
  const ids = (argv[at + 1] ?? '').split(',').filter((x) => x !== '');
  const unknown = ids.filter((id) => !SECTIONS.some((s) => s.id === id));
  if (ids.length === 0 || unknown.length > 0) {
    throw new Error(`--only: expected section ids from ${SECTIONS.map((s) => s.id).join(', ')}, got ${JSON.stringify(argv[at + 1] ?? '')}`);
  }
  return SECTIONS.filter((s) => ids.includes(s.id));
}

/**
 * `doc` with each part's section (from its first heading line to the next heading of the same or a
 * higher level) replaced by the part; a part whose heading `doc` lacks is appended.
 */
function spliceSections(doc: string, parts: readonly string[]): string {
  let out = doc;
  for (const part of parts) {
    const heading = part.split('\n')[0] ?? '';
    const level = /^#+/.exec(heading)?.[0].length ?? 3;
    const start = out.indexOf(`${heading}\n`);
    if (start < 0) {
      out = `${out.trimEnd()}\n\n${part}\n`;
      continue;
    }
    const rest = out.slice(start + heading.length);
    const next = new RegExp(`\n#{1,${level}} `).exec(rest);
    const end = next === null ? out.length : start + heading.length + next.index + 1;
    out = `${out.slice(0, start)}${part}\n\n${out.slice(end)}`;
  }
  return out;
}

/**
 * An earlier run's note line without the sections this run replaces: unchanged when it names none
 * of them, gone when it names only them.
 */
function withoutSections(line: string, replaced: readonly Section[]): string[] {
  const at = line.indexOf(': from one run');
  if (!line.startsWith('- sections ') || at < 0) return [line];
  const names = [...line.slice(0, at).matchAll(/"([^"]+)"/g)].map((m) => m[1] ?? '');
  const kept = names.filter((name) => !replaced.some((s) => s.name === name));
  if (kept.length === names.length) return [line];
  return kept.length === 0 ? [] : [`- sections ${kept.map((name) => `"${name}"`).join(', ')}${line.slice(at)}`];
}

async function main(): Promise<void> {
  const started = new Date();
  const chosen = chosenSections(process.argv.slice(2));
  const parts: string[] = [];
  for (const s of chosen) {
    process.stderr.write(`bench: ${s.name} …\n`);
    const t0 = performance.now();
    parts.push(await s.run());
    process.stderr.write(`bench: ${s.name} done in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
  }
  // The last section: every goal the sections measured, from this run alone.
  const command = chosen === SECTIONS ? 'npm run bench' : `npm run bench -- --only ${chosen.map((s) => s.id).join(',')}`;
  const goals = goalsSection(recordedGoals(), command);
  if (goals !== '') parts.push(goals);
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  const machine = `${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`;
  if (chosen !== SECTIONS) {
    const ids = chosen.map((s) => s.id).join(',');
    const note = `- sections ${chosen.map((s) => `"${s.name}"`).join(', ')}: from one run of \`npm run bench -- --only ${ids}\`, ${started.toISOString()}, ${machine}; the others from the run above`;
    const doc = spliceSections(readFileSync('BENCHMARKS.md', 'utf8'), parts).replace(/\n- machine: [^\n]*\n(?:- sections [^\n]*\n)*/, (m) => `${m.split('\n').flatMap((line) => withoutSections(line, chosen)).join('\n')}${note}\n`).replace('every number below comes from that one run.', "each section's numbers come from one run: the one below, or the one its line names.");
    writeFileSync('BENCHMARKS.md', doc);
    process.stderr.write(`bench: replaced ${ids} in BENCHMARKS.md\n`);
    process.exit(0);
  }
  const doc = [
    '# Benchmarks',
    '',
    'Produced by `npm run bench` (bench/run.ts); every number below comes from that one run.',
    '',
    `- date: ${started.toISOString()}`,
    `- machine: ${machine}`,
    '',
    ...parts.flatMap((p) => [p, '']),
  ].join('\n');
  writeFileSync('BENCHMARKS.md', doc);
  process.stderr.write('bench: wrote BENCHMARKS.md\n');
  // A stopped SimStack still leaves work on the event loop (see BENCHMARKS.md), so exit explicitly.
  process.exit(0);
}

await main();
