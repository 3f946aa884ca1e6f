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
import { basename, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { serverlessEsbuildOptions, serverlessFunctions } from './esbuild-options.js';

const ROOT = join(import.meta.dirname, '..');

/** One built function: where its bundle is and how big it is. */
export type BuiltFunction = { readonly name: string; readonly file: string; readonly bytes: number };

/** Bundles every function of serverless.yml into `outDir` (emptied first). */
export async function buildFunctions(outDir: string): Promise<BuiltFunction[]> {
  const { options, outExtension } = serverlessEsbuildOptions();
  rmSync(outDir, { recursive: true, force: true });
  const built: BuiltFunction[] = [];
  for (const fn of serverlessFunctions()) {
    const file = join(outDir, fn.name, `${basename(fn.entry, '.ts')}${outExtension}`);
    const result = await build({ ...options, entryPoints: [join(ROOT, fn.entry)], outfile: file, metafile: true }).catch((err: unknown) => {
      throw new Error(`${fn.name} (${fn.entry}): ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
    });
    const exports = Object.values(result.metafile.outputs).flatMap((o) => o.exports);
    if (!exports.includes(fn.exportName)) throw new Error(`${fn.name} (${fn.entry}): the bundle does not export ${fn.exportName}`);
    built.push({ name: fn.name, file, bytes: statSync(file).size });
  }
  return built;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { out: { type: 'string' } }, strict: true });
  const outDir = resolve(values.out ?? join(ROOT, 'dist'));
  try {
    for (const fn of await buildFunctions(outDir)) console.log(`${fn.name.padEnd(10)} ${(fn.bytes / 1024 / 1024).toFixed(2).padStart(6)} MB  ${fn.file}`);
  } catch (err) {
    console.error(`build: ${(err as Error).message}`);
    process.exitCode = 1;
  }
}
