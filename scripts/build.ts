/**
 * `npm run build`: every Lambda function of serverless.yml bundled exactly as `npm run package`
 * (serverless-esbuild) bundles it — same esbuild options, read from serverless.yml — into
 * `dist/<function>/<handler file>.mjs` with its external source map, without the CloudFormation
 * part. For looking at or sizing what Lambda runs; `npm run package` remains the deployable output.
 * Exit 1 naming the function when a bundle fails or lacks its handler export.
 *
 *   npm run build [-- --out DIR]
 */
import { rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { type Metafile, build } from 'esbuild';
import { serverlessEsbuildOptions, serverlessFunctions } from './esbuild-options.js';

const ROOT = join(import.meta.dirname, '..');

/**
 * One built function: where its bundle is, how big it is, what went into it (input paths, e.g.
 * `node_modules/undici/index.js` or `lib/kube/http.ts`), and its bytes by npm package (or by
 * `lib/<folder>` for the project's own code), largest first.
 */
export type BuiltFunction = {
  readonly name: string;
  readonly file: string;
  readonly bytes: number;
  readonly inputs: readonly string[];
  /** What the bundle still imports at run time (Node's modules, or packages left external), with how. */
  readonly externals: readonly { readonly path: string; readonly kind: string }[];
  readonly packages: readonly (readonly [string, number])[];
};

/**
 * Bundles every function of `serverlessYml` (default: the project's) into `outDir` (emptied first),
 * with that file's esbuild options and its functions' sources next to it.
 */
export async function buildFunctions(outDir: string, serverlessYml = join(ROOT, 'serverless.yml')): Promise<BuiltFunction[]> {
  const { options, outExtension } = serverlessEsbuildOptions(serverlessYml);
  const root = dirname(serverlessYml);
  rmSync(outDir, { recursive: true, force: true });
  const built: BuiltFunction[] = [];
  for (const fn of serverlessFunctions(serverlessYml)) {
    const file = join(outDir, fn.name, `${basename(fn.entry, '.ts')}${outExtension}`);
    const result = await build({ ...options, entryPoints: [join(root, fn.entry)], outfile: file, metafile: true }).catch((err: unknown) => {
      throw new Error(`${fn.name} (${fn.entry}): ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
    });
    const exports = Object.values(result.metafile.outputs).flatMap((o) => o.exports);
    if (!exports.includes(fn.exportName)) throw new Error(`${fn.name} (${fn.entry}): the bundle does not export ${fn.exportName}`);
    const output = Object.values(result.metafile.outputs).find((o) => o.entryPoint !== undefined);
    built.push({ name: fn.name, file, bytes: statSync(file).size, inputs: Object.keys(output?.inputs ?? {}), externals: externalsOf(output), packages: bytesByPackage(output) });
  }
  return built;
}

function externalsOf(output: Metafile['outputs'][string] | undefined): { path: string; kind: string }[] {
  const seen = new Map<string, { path: string; kind: string }>();
  for (const i of output?.imports ?? []) if (i.external) seen.set(`${i.kind} ${i.path}`, { path: i.path, kind: i.kind });
  return [...seen.values()];
}

function bytesByPackage(output: Metafile['outputs'][string] | undefined): [string, number][] {
  const by = new Map<string, number>();
  for (const [path, input] of Object.entries(output?.inputs ?? {})) {
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1] ?? path.split('/').slice(0, 2).join('/');
    by.set(pkg, (by.get(pkg) ?? 0) + input.bytesInOutput);
  }
  return [...by].sort((a, b) => b[1] - a[1]);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { out: { type: 'string' } }, strict: true });
  const outDir = resolve(values.out ?? join(ROOT, 'dist'));
  try {
    for (const fn of await buildFunctions(outDir)) {
      const largest = fn.packages.slice(0, 3).map(([pkg, bytes]) => `${pkg} ${(bytes / 1024).toFixed(0)} KB`).join(', ');
      console.log(`${fn.name.padEnd(10)} ${(fn.bytes / 1024 / 1024).toFixed(2).padStart(6)} MB  ${fn.file}  (largest: ${largest})`);
    }
  } catch (err) {
    console.error(`build: ${(err as Error).message}`);
    process.exitCode = 1;
  }
}
