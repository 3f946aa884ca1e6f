/**
 * The exporter's memory in a session (issue 30: a memory size with headroom, the fixed cost cut).
 * Its bundle, built as serverless.yml builds it, runs in a fresh Node process started as Lambda's
 * Node.js runtime starts one for the exporter's configured memory (bench/cold-start.ts
 * `lambdaNodeArgs`: the heap limits follow the memory size), against the cold-start bench's local
 * ends (the simulated API server behind HTTPS, dynalite, a local SQS server). The simulated
 * cluster holds `clusters` copies of one full cluster at rest — every object the exporter watches
 * of test/scenarios/at-rest-load.yaml's cluster (PD 3, TiKV 3, TiDB 2, TiFlash 1, TiCDC 2, Pump 1)
 * once Ready, each copy in a namespace of its own. Two sessions run in the one process: the first
 * has no checkpoint (it LISTs every kind, sends a trigger per cluster, watches), the second
 * resumes from the checkpoints (a warm container) while every Pod of the copies changes once.
 * The process samples its memory every 10 ms; `maxRSS` is the kernel's high-water mark.
 *
 *   npm run bench -- --only exporter-memory
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { watchedResources } from '../lib/exporter/resources.js';
import { createProgress } from '../lib/local/scenario/progress.js';
import type { Scenario } from '../lib/local/scenario/types.js';
import { SimStack } from '../lib/local/sim-stack.js';
import { runScenario } from '../lib/local/simulate.js';
import type { KubeObject } from '../lib/sim/object.js';
import { buildFunctions } from '../scripts/build.js';
import { serverlessFunctionSizing } from '../scripts/esbuild-options.js';
import { lambdaNodeArgs, startColdEnds } from './cold-start.js';
import { loadScenario } from './probes.js';
import { table } from './stats.js';

const ROOT = join(import.meta.dirname, '..');
const NODE = join(ROOT, 'node_modules', '.bin', 'node');
const FILE = join(ROOT, 'test', 'scenarios', 'at-rest-load.yaml');
/** Each session's Lambda time left; the session is this less the margin below. */
const REMAINING_MS = 8_000;
const MARGIN_MS = 1_000;

/** What the measured process saw: peaks over both sessions, and what each session counted. */
export type ExporterMemory = { importedRssMb: number; peakExternalMb: number; peakRssMb: number; peakHeapUsedMb: number; maxRssMb: number; heapAfterGcMb: number; sessions: Record<string, number>[] };

/** Every object the exporter watches of the sample cluster, once it is Ready (its namespace's). */
async function sampleObjects(): Promise<KubeObject[]> {
  const file = loadScenario(FILE);
  const { expect: _bounds, ...rest } = file;
  const first = file.timeline[0];
  if (first === undefined) throw new Error(`${FILE}: no timeline`);
  const scenario: Scenario = { ...rest, timeline: [first] };
  const stack = await SimStack.start(scenario, scenario.seed);
  try {
    const report = await runScenario(stack, createProgress({ quiet: true }));
    if (!report.passed) throw new Error(`${FILE}: the sample cluster did not come to Ready`);
    const namespace = file.cluster.metadata.namespace;
    return watchedResources().flatMap((r) => stack.world.store.list(r.kind, namespace, () => true));
  } finally {
    await stack.stop();
  }
}

/** `object` as a new object of `namespace`: what the server assigns stripped, and its owners (their uids are the sample world's; the garbage collector would delete it). */
function copyInto(object: KubeObject, namespace: string): KubeObject {
  const { uid: _uid, resourceVersion: _rv, creationTimestamp: _ct, generation: _g, managedFields: _mf, ownerReferences: _owners, ...metadata } = object.metadata as KubeObject['metadata'] & Record<string, unknown>;
  return { ...object, metadata: { ...metadata, namespace } };
}

// The measured process: two invocations of the handler, memory sampled throughout.
const CHILD = `
const m = await import(process.env.BENCH_MODULE);
const importedRss = process.memoryUsage().rss;
const peaks = { rss: 0, heapUsed: 0, external: 0 };
const sample = () => { const u = process.memoryUsage(); peaks.rss = Math.max(peaks.rss, u.rss); peaks.heapUsed = Math.max(peaks.heapUsed, u.heapUsed); peaks.external = Math.max(peaks.external, u.external); };
const timer = setInterval(sample, 10);
const sessions = [];
for (let i = 0; i < 2; i++) {
  const deadline = Date.now() + Number(process.env.BENCH_REMAINING_MS);
  process.stdout.write('\\nSESSION ' + i + '\\n');
  const summary = await m.handler({}, { awsRequestId: 'mem-' + i, getRemainingTimeInMillis: () => deadline - Date.now() });
  sessions.push(summary.counts);
}
clearInterval(timer);
sample();
globalThis.gc?.();
const mb = (b) => b / 1048576;
process.stdout.write('\\n' + JSON.stringify({ importedRssMb: mb(importedRss), peakExternalMb: mb(peaks.external), peakRssMb: mb(peaks.rss), peakHeapUsedMb: mb(peaks.heapUsed), maxRssMb: process.resourceUsage().maxRSS / 1024, heapAfterGcMb: mb(process.memoryUsage().heapUsed), sessions }) + '\\n');
process.exit(0);
`;

/** Runs the exporter bundle's two sessions over `clusters` copies; the parent changes every Pod in the second. */
export async function measureExporterMemory(clusters: number, memoryMb = serverlessFunctionSizing('exporter').memoryMb): Promise<ExporterMemory & { memoryMb: number; objects: number; bytes: number; podsChanged: number }> {
  const objects = await sampleObjects();
  const outDir = mkdtempSync(join(tmpdir(), 'exporter-memory-'));
  const ends = await startColdEnds();
  try {
    const built = (await buildFunctions(outDir)).find((b) => b.name === 'exporter');
    if (built === undefined) throw new Error('serverless.yml has no exporter function');
    let bytes = 0;
    for (let i = 0; i < clusters; i++) {
      const namespace = `mem-${String(i).padStart(4, '0')}`;
      ends.world.store.create('Namespace', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
      for (const object of objects) bytes += JSON.stringify(ends.world.store.create(object.kind ?? '', copyInto(object, namespace), { keepStatus: true })).length;
    }
    const creds = ends.env;
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '', ...creds, BENCH_MODULE: pathToFileURL(built.file).href, BENCH_REMAINING_MS: String(REMAINING_MS), EXPORTER_SAFETY_MARGIN_MS: String(MARGIN_MS), EXPORTER_FLUSH_WINDOW_MS: '100' };
    const child = spawn(NODE, [...lambdaNodeArgs(memoryMb), '--input-type=module', '-e', CHILD], { env, stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 });
    let stdout = '';
    let stderr = '';
    let touched = false;
    let touchedPods = 0;
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      // In the second session, once its watches are open, every Pod of the copies changes once.
      if (!touched && stdout.includes('SESSION 1')) {
        touched = true;
        setTimeout(() => (touchedPods = touchPods(ends.world.store)), 2_000);
      }
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const status = await new Promise<number | null>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', resolve);
    });
    if (status !== 0) throw new Error(`exporter memory run failed (${status}): ${stderr.slice(-800)}`);
    const result = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as ExporterMemory;
    return { ...result, memoryMb, objects: objects.length * clusters, bytes, podsChanged: touchedPods };
  } finally {
    await ends.close();
    rmSync(outDir, { recursive: true, force: true });
  }
}

/** An annotation added to every Pod of the copies (a change the exporter must look at). */
function touchPods(store: SimStack['world']['store']): number {
  let n = 0;
  for (const pod of store.list('Pod').filter((p) => (p.metadata.namespace ?? '').startsWith('mem-'))) {
    store.update('Pod', { ...pod, metadata: { ...pod.metadata, annotations: { ...pod.metadata.annotations, 'bench/touched': 'yes' } } });
    n++;
  }
  return n;
}

/** The bench section. */
export async function benchExporterMemory(clusters = 100): Promise<string> {
  const m = await measureExporterMemory(clusters);
  const [first, second] = m.sessions;
  const rows = [
    ['RSS once the bundle is imported (before the first session)', m.importedRssMb.toFixed(1)],
    ['peak RSS (sampled every 10 ms)', m.peakRssMb.toFixed(1)],
    ['max RSS (kernel high-water mark)', m.maxRssMb.toFixed(1)],
    ['peak V8 heap used', m.peakHeapUsedMb.toFixed(1)],
    ['peak memory outside the V8 heap (buffers)', m.peakExternalMb.toFixed(1)],
    ['V8 heap used after both sessions and a full GC', m.heapAfterGcMb.toFixed(1)],
  ];
  return [
    `### The exporter's memory in a session: ${clusters} full clusters`,
    '',
    `\`npm run bench -- --only exporter-memory\` (bench/exporter-memory.ts). The exporter bundle (as serverless.yml builds it) in a fresh \`node_modules/.bin/node\` started as Lambda's Node.js runtime starts a function of the exporter's configured ${m.memoryMb} MB (heap limits from the memory size), against local ends (the simulated API server behind HTTPS, dynalite, a local SQS server). The cluster holds ${clusters} copies of test/scenarios/at-rest-load.yaml's cluster once Ready (PD 3, TiKV 3, TiDB 2, TiFlash 1, TiCDC 2, Pump 1): ${m.objects.toLocaleString('en-US')} watched objects, ${(m.bytes / 1048576).toFixed(1)} MB of JSON. Two ${(REMAINING_MS - MARGIN_MS) / 1000} s sessions in one process: the first without a checkpoint (relists ${first?.['relists'] ?? 0}, messages sent ${first?.['messagesSent'] ?? 0}), the second resumed from its checkpoints while every Pod of the copies changes once (${m.podsChanged} Pods changed; events seen ${second?.['eventsSeen'] ?? 0}, relists ${second?.['relists'] ?? 0}, messages sent ${second?.['messagesSent'] ?? 0}). Lambda's own runtime process is not in these numbers; its "Max Memory Used" counts it too.`,
    '',
    table(['over both sessions', 'MB'], rows),
    '',
    `Configured: ${m.memoryMb} MB — ${(m.memoryMb / Math.max(m.peakRssMb, m.maxRssMb)).toFixed(1)}× the peak RSS here.`,
  ].join('\n');
}
