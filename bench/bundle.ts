/**
 * Every Lambda function's bundle and cold start, before → after, side by side from one run.
 * "After" is built exactly as serverless.yml's `custom.esbuild` says (read from the file, so the
 * two cannot drift). "Before" is the same function built from the baseline commit's sources with
 * that commit's serverless.yml (the AWS SDK left to the runtime's CommonJS copy, client-node's
 * package index and undici fetch), so the gain is measured, not remembered. For each function:
 * the bundle size; the module init (`import()` in a fresh `node_modules/.bin/node` process); the
 * first invocation in the same process against local ends (bench/cold-start.ts); and, under
 * callgrind, the instructions of the import alone and of the whole cold start (process start,
 * import, first invocation, exit), which this loaded machine does not disturb. An empty middy
 * handler bundled the same way is the floor. Targets: cold start ≤ 40 % of before's instructions,
 * import ≤ 150 ms.
 *
 *   npx tsx bench/bundle.ts
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { build } from 'esbuild';
import { type BuiltFunction, buildFunctions } from '../scripts/build.js';
import { serverlessEsbuildOptions } from '../scripts/esbuild-options.js';
import { type ColdEnds, type ColdRun, type ColdSample, coldInstructions, coldRun, hasCallgrind, startColdEnds } from './cold-start.js';
import { stats, table } from './stats.js';
import { BASELINE_EXPORTER_KINDS, watchedKindCount } from './cold-invocations.js';

const ROOT = join(import.meta.dirname, '..');
/** The commit "before" is built from: the last one before the cold-start work. */
export const BASELINE_COMMIT = '65b15b329a8229147be244d30fad83956d7af796';
const RUNS = 5;
const MB = 1024 * 1024;
const G = 1e9;

/** The trivial handler every function is compared with. */
const EMPTY_HANDLER = `import middy from '@middy/core';
export const handler = middy().handler(async () => ({ batchItemFailures: [] }));
`;

type Variant = 'before' | 'after';
type Measured = { samples: ColdSample[]; importInstructions?: number; coldInstructions?: number };

/** Builds the baseline commit's functions with its own serverless.yml into `dir/before`. */
export async function buildBaseline(dir: string): Promise<BuiltFunction[]> {
  const src = join(dir, 'baseline-src');
  mkdirSync(src);
  const paths = ['functions', 'lib', 'scripts', 'types', 'serverless.yml', 'package.json', 'tsconfig.json'];
  const archive = spawnSync('git', ['-C', ROOT, 'archive', '--format=tar', BASELINE_COMMIT, ...paths], { maxBuffer: 512 * MB });
  if (archive.status !== 0) throw new Error(`git archive ${BASELINE_COMMIT}: ${archive.stderr.toString().slice(0, 300)}`);
  const untar = spawnSync('tar', ['-x', '-C', src], { input: archive.stdout });
  if (untar.status !== 0) throw new Error(`tar: ${untar.stderr.toString().slice(0, 300)}`);
  symlinkSync(join(ROOT, 'node_modules'), join(src, 'node_modules'), 'dir');
  const built = await buildFunctions(join(dir, 'before'), join(src, 'serverless.yml'));
  // What the Lambda runtime provides to bundles that leave the SDK external.
  mkdirSync(join(dir, 'before', 'node_modules'));
  symlinkSync(join(ROOT, 'node_modules', '@aws-sdk'), join(dir, 'before', 'node_modules', '@aws-sdk'), 'dir');
  return built;
}

async function buildEmpty(dir: string): Promise<string> {
  const { options, outExtension } = serverlessEsbuildOptions();
  const file = join(dir, 'empty', `empty-handler${outExtension}`);
  await build({ ...options, stdin: { contents: EMPTY_HANDLER, resolveDir: ROOT, sourcefile: 'empty-handler.ts', loader: 'ts' }, outfile: file });
  return file;
}

const ms = (values: number[]): string => Number(stats(values).median).toFixed(0);
const gi = (n: number | undefined): string => (n === undefined ? '–' : (n / G).toFixed(3));
const mb = (bytes: number): string => (bytes / MB).toFixed(2);
const arrow = (before: string, after: string): string => `${before} → ${after}`;

/** Times every function's cold runs (interleaved, so drift hits all alike), then counts instructions. */
async function measure(ends: ColdEnds, builds: Record<Variant, BuiltFunction[]>, empty: string, callgrind: boolean): Promise<{ fns: Map<string, Record<Variant, Measured>>; empty: Measured }> {
  const fns = new Map<string, Record<Variant, Measured>>(builds.after.map((b) => [b.name, { before: { samples: [] }, after: { samples: [] } }]));
  const floor: Measured = { samples: [] };
  const runOf = (variant: Variant, name: string, n: number, first: boolean): ColdRun => {
    const file = builds[variant].find((b) => b.name === name)?.file ?? '';
    return first ? { file, env: ends.env, first: ends.firstInvocation(name, n, variant === 'before') } : { file };
  };
  let n = 0;
  for (let i = 0; i < RUNS; i++) {
    floor.samples.push(await coldRun({ file: empty }));
    for (const [name, m] of fns) for (const variant of ['before', 'after'] as const) m[variant].samples.push(await coldRun(runOf(variant, name, n++, true)));
  }
  if (callgrind) {
    floor.importInstructions = await coldInstructions({ file: empty });
    for (const [name, m] of fns) {
      for (const variant of ['before', 'after'] as const) {
        // Two at once: instruction counts do not depend on the other core's load.
        [m[variant].importInstructions, m[variant].coldInstructions] = await Promise.all([coldInstructions(runOf(variant, name, n++, false)), coldInstructions(runOf(variant, name, n++, true))]);
      }
    }
  }
  return { fns, empty: floor };
}

/** Runs the bundle and cold-start benchmark and returns its Markdown section. */
export async function benchBundle(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'tidb-reconciler-bundle-'));
  const ends = await startColdEnds();
  try {
    const builds = { before: await buildBaseline(dir), after: await buildFunctions(join(dir, 'after')) };
    const empty = await buildEmpty(dir);
    const callgrind = hasCallgrind();
    const { fns, empty: floor } = await measure(ends, builds, empty, callgrind);
    const size = (variant: Variant, name: string): BuiltFunction | undefined => builds[variant].find((b) => b.name === name);
    const rows = [...fns].map(([name, m]) => {
      const [b, a] = [size('before', name), size('after', name)];
      const ratio = m.before.coldInstructions && m.after.coldInstructions ? `${((100 * m.after.coldInstructions) / m.before.coldInstructions).toFixed(0)} %` : '–';
      return [
        name,
        arrow(mb(b?.bytes ?? 0), mb(a?.bytes ?? 0)),
        arrow(ms(m.before.samples.map((s) => s.importMs)), ms(m.after.samples.map((s) => s.importMs))),
        arrow(ms(m.before.samples.map((s) => s.firstMs ?? 0)), ms(m.after.samples.map((s) => s.firstMs ?? 0))),
        arrow(gi(m.before.importInstructions), gi(m.after.importInstructions)),
        arrow(gi(m.before.coldInstructions), gi(m.after.coldInstructions)),
        ratio,
      ];
    });
    rows.push(['empty middy handler', mb(readFileSync(empty).length), ms(floor.samples.map((s) => s.importMs)), '–', gi(floor.importInstructions), gi(floor.importInstructions), '–']);
    const largest = builds.after.map((b) => `${b.name}: ${b.packages.slice(0, 4).map(([p, bytes]) => `${p} ${(bytes / 1024).toFixed(0)} KB`).join(', ')}`);
    const zipped = builds.after.map((b) => `${b.name} ${mb(deflateRawSync(readFileSync(b.file)).length)} MB`).join(', ');
    return [
      '### Lambda bundles and cold start, before → after',
      '',
      `Before: the functions of commit ${BASELINE_COMMIT.slice(0, 7)} built with its serverless.yml (\`@aws-sdk/*\` external, loaded from node_modules as the nodejs22.x runtime provides it; client-node's package index; undici fetch). After: this tree's serverless.yml (the SDK bundled from its ES modules, client-node's KubeConfig module only, Node's http client, undici, proxy agents and generated API clients left out by scripts/esbuild-plugins.cjs). ${RUNS} cold processes per bundle, interleaved; medians. The first invocation runs against local ends (an empty simulated cluster behind HTTPS with its own CA, dynalite, a local SQS server): reconcile steps a paused TidbCluster (full observe, validation, its first status write, commit), sweep lists the cluster, timer enqueues a wake-up, admin answers \`status\` of a paused TidbCluster; exporter runs a 1 s session over a world fixed for it (a namespace of its own, made for each run, holding 5 paused TidbClusters; no checkpoint yet): it reads a checkpoint per watched kind (none), LISTs each kind once, sends the 5 triggers to the queue, writes a checkpoint per kind (before: ${BASELINE_EXPORTER_KINDS} kinds; after: ${watchedKindCount()}, the backup, initializer, monitor and dashboard kinds added since, so after's exporter does more work here than before's), opens no watch (less than the 1 s the exporter asks of one is left) and idles to the session's end — every run checked to have done exactly that, so its instructions count the same work for before and after whatever ran before it, and its first-invocation time is the session's length. Instructions: callgrind (\`/usr/bin/valgrind --tool=callgrind\`), one run each, all threads, process start to exit; "cold start" = import + first invocation.${callgrind ? '' : ' **valgrind was not found: no instruction counts.**'} Targets: cold start ≤ 40 % of before, import ≤ 150 ms.`,
      '',
      table(['function', 'bundle MB', 'import() ms', 'first invocation ms', 'import G instructions', 'cold start G instructions', 'cold start after / before'], rows),
      '',
      `Deflated (zip) after: ${zipped}. Largest packages after — ${largest.join('; ')}.`,
    ].join('\n');
  } finally {
    await ends.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchBundle());
  // Keep-alive sockets of the local ends' clients would hold the process a while.
  process.exit(0);
}
