/**
 * The reconcile function as Lambda gets it: bundled with esbuild exactly as serverless.yml's
 * `custom.esbuild` says (read from the file, so the two cannot drift), next to an empty middy
 * handler bundled the same way. Reports each bundle's size and its cold module init: `import()` of
 * the bundle in a fresh Node process (node_modules/.bin/node), `RUNS` times each, interleaved, plus
 * the same for a module importing only the AWS SDK packages the bundle imports (its share of init).
 * `@aws-sdk/*` stays external as on Lambda (the nodejs22.x runtime provides it); here it resolves to
 * the project's node_modules through a symlink, so its load time is part of the init measured.
 * Targets: bundle ≤ 3 MB, init ≤ 200 ms.
 *
 *   npx tsx bench/bundle.ts
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { deflateRawSync } from 'node:zlib';
import { type BuildOptions, type Metafile, build } from 'esbuild';
import { serverlessEsbuildOptions } from '../scripts/esbuild-options.js';
import { stats, table } from './stats.js';

const ROOT = join(import.meta.dirname, '..');
const NODE = join(ROOT, 'node_modules', '.bin', 'node');
const RUNS = 10;
const MB = 1024 * 1024;

/** The trivial handler the reconcile function is compared with. */
const EMPTY_HANDLER = `import middy from '@middy/core';
export const handler = middy().handler(async () => ({ batchItemFailures: [] }));
`;

type Bundles = {
  reconcile: string;
  empty: string;
  /** A module importing only the `@aws-sdk/*` packages the reconcile bundle imports. */
  sdkOnly: string;
  sdkPackages: string[];
  /** The packages (or source folders) contributing most bytes to the reconcile bundle. */
  largest: [string, number][];
};

/** Bundles `functions/reconcile.ts` and the empty handler into `dir`. */
async function bundleAll(dir: string): Promise<Bundles> {
  const { options, outExtension } = serverlessEsbuildOptions();
  const reconcile = join(dir, 'reconcile', `reconcile${outExtension}`);
  const empty = join(dir, 'empty', `empty-handler${outExtension}`);
  const built = await build({ ...options, entryPoints: [join(ROOT, 'functions', 'reconcile.ts')], outfile: reconcile, metafile: true });
  await build({ ...options, stdin: { contents: EMPTY_HANDLER, resolveDir: ROOT, sourcefile: 'empty-handler.ts', loader: 'ts' }, outfile: empty });
  // What the Lambda runtime provides: the AWS SDK, found by the bundles' bare imports.
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(join(ROOT, 'node_modules', '@aws-sdk'), join(dir, 'node_modules', '@aws-sdk'), 'dir');
  const sdkPackages = [...new Set([...readFileSync(reconcile, 'utf8').matchAll(/from\s*"(@aws-sdk\/[^"]+)"/g)].map((m) => m[1] ?? ''))].sort();
  const sdkOnly = join(dir, `aws-sdk-only${outExtension}`);
  writeFileSync(sdkOnly, [...sdkPackages.map((p) => `import '${p}';`), 'export const handler = () => undefined;', ''].join('\n'));
  return { reconcile, empty, sdkOnly, sdkPackages, largest: largestInputs(built.metafile) };
}

/** Bytes in the output by npm package (or by `lib/<folder>` for the project's own code), largest first. */
function largestInputs(meta: Metafile): [string, number][] {
  const output = Object.values(meta.outputs).find((o) => o.entryPoint !== undefined);
  const by = new Map<string, number>();
  for (const [path, input] of Object.entries(output?.inputs ?? {})) {
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1] ?? path.split('/').slice(0, 2).join('/');
    by.set(pkg, (by.get(pkg) ?? 0) + input.bytesInOutput);
  }
  return [...by].sort((a, b) => b[1] - a[1]).slice(0, 5);
}

type InitSample = { importMs: number; readyMs: number };

/** One fresh Node process: `import()` the bundle, check it exports `handler`, report the times. */
function coldImport(file: string): InitSample {
  const code = [
    'const t0 = performance.now();',
    'const m = await import(process.env.BENCH_MODULE);',
    "if (typeof m.handler !== 'function') throw new Error('the bundle exports no handler');",
    'const t1 = performance.now();',
    'process.stdout.write(JSON.stringify({ importMs: t1 - t0, readyMs: t1 }));',
  ].join('\n');
  const run = spawnSync(NODE, ['--input-type=module', '-e', code], {
    env: { PATH: process.env.PATH ?? '', BENCH_MODULE: pathToFileURL(file).href },
    encoding: 'utf8',
    timeout: 30_000,
  });
  if (run.status !== 0) throw new Error(`cold import of ${file} failed (${run.status ?? run.signal}): ${run.stderr.slice(0, 500)}`);
  return JSON.parse(run.stdout) as InitSample;
}

function sizeRow(name: string, file: string): (string | number)[] {
  const bytes = readFileSync(file);
  const mapBytes = statSync(`${file}.map`, { throwIfNoEntry: false })?.size;
  return [name, (bytes.length / MB).toFixed(3), (deflateRawSync(bytes).length / MB).toFixed(3), mapBytes === undefined ? '–' : (mapBytes / MB).toFixed(3)];
}

/** Runs the bundle benchmark and returns its Markdown section. */
export async function benchBundle(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'tidb-reconciler-bundle-'));
  try {
    const files = await bundleAll(dir);
    const samples: Record<'reconcile' | 'empty' | 'sdk', InitSample[]> = { reconcile: [], empty: [], sdk: [] };
    for (let i = 0; i < RUNS; i++) {
      // Interleaved, so drift on this noisy machine hits all alike.
      samples.empty.push(coldImport(files.empty));
      samples.reconcile.push(coldImport(files.reconcile));
      samples.sdk.push(coldImport(files.sdkOnly));
    }
    const initRow = (name: string, s: InitSample[]): (string | number)[] => {
      const imp = stats(s.map((x) => x.importMs));
      const ready = stats(s.map((x) => x.readyMs));
      const min = Math.min(...s.map((x) => x.importMs));
      const max = Math.max(...s.map((x) => x.importMs));
      return [name, Number(imp.median).toFixed(1), `${min.toFixed(1)}–${max.toFixed(1)}`, Number(ready.median).toFixed(1)];
    };
    const largest = files.largest.map(([name, bytes]) => `${name} ${(bytes / MB).toFixed(2)} MB`).join(', ');
    return [
      '### Reconcile function bundle and module init',
      '',
      `Built with esbuild exactly as serverless.yml's \`custom.esbuild\` (ESM, createRequire banner, minify, keepNames, node22, \`@aws-sdk/*\` external), into a temporary directory; the empty handler is \`middy().handler(async () => ({ batchItemFailures: [] }))\` bundled the same way.`,
      '',
      table(['bundle', 'size MB', 'deflated MB (zip compression)', 'source map MB (not shipped)'], [sizeRow('functions/reconcile.ts', files.reconcile), sizeRow('empty middy handler', files.empty)]),
      '',
      `Largest contributors to the reconcile bundle: ${largest}.`,
      '',
      `Cold init: ${RUNS} fresh \`node_modules/.bin/node\` processes per module, interleaved; \`import()\` of the module (\`@aws-sdk/*\` loaded from node_modules, as the runtime provides it), OS file cache warm. Targets: bundle ≤ 3 MB, init ≤ 200 ms.`,
      '',
      table(['module', 'import() median ms', 'import() min–max ms', 'process start → handler ready, median ms'], [
        initRow('functions/reconcile.ts bundle', samples.reconcile),
        initRow('empty middy handler bundle', samples.empty),
        initRow(`only the AWS SDK packages the reconcile bundle imports (${files.sdkPackages.join(', ')})`, samples.sdk),
      ]),
    ].join('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchBundle());
}
