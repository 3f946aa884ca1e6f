/**
 * Jest's global setup (jest.config.js): builds the `tidb-reconciler` command once for the run, for
 * the tests that start it only to drive something else (test/support/prebuilt-cli.ts says why), in a
 * temp directory of its own, so that runs in parallel never share one, and hands its entry to the
 * workers through the environment. Jest loads this file outside its module system: it imports only
 * packages and Node's modules.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { build } from 'esbuild';

const ROOT = join(import.meta.dirname, '..', '..');

/** The environment variable through which the global setup hands the prebuilt entry to the workers. */
export const PREBUILT_CLI_ENV = 'TIDB_RECONCILER_PREBUILT_CLI';

/** The environment variable that names the run's temp directory, for the global teardown. */
export const PREBUILT_CLI_DIR_ENV = 'TIDB_RECONCILER_PREBUILT_CLI_DIR';

/** The directories whose TypeScript the command runs (lib/ imports functions/'s handlers). */
const SOURCE_DIRS = ['lib', 'functions'];

/** Every file under `dir`, as paths relative to the repository root. */
function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]));
}

/**
 * Transpiles the command into `outDir` (which must not exist yet) and returns the path of its entry,
 * lib/cli/main.js there.
 */
export async function buildPrebuiltCli(outDir: string): Promise<string> {
  mkdirSync(outDir, { recursive: true });
  for (const entry of readdirSync(ROOT)) if (!SOURCE_DIRS.includes(entry)) symlinkSync(join(ROOT, entry), join(outDir, entry));
  const files = SOURCE_DIRS.flatMap(filesUnder);
  const sources = files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
  for (const f of files.filter((file) => !file.endsWith('.ts'))) {
    mkdirSync(dirname(join(outDir, f)), { recursive: true });
    symlinkSync(join(ROOT, f), join(outDir, f));
  }
  await build({
    entryPoints: sources.map((f) => join(ROOT, f)),
    outdir: outDir,
    outbase: ROOT,
    bundle: false,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    logLevel: 'error',
  });
  const entry = join(outDir, 'lib', 'cli', 'main.js');
  if (!existsSync(entry)) throw new Error(`the prebuilt command has no entry at ${relative(ROOT, entry)}`);
  return entry;
}

/** The environment variable that carries why the build failed, for the tests that need the command. */
export const PREBUILT_CLI_ERROR_ENV = 'TIDB_RECONCILER_PREBUILT_CLI_ERROR';

/**
 * Builds the command and sets `PREBUILT_CLI_ENV` (and `PREBUILT_CLI_DIR_ENV`) for the workers. A
 * failed build (a syntax error somewhere in lib/) fails only the tests that start the command, with
 * esbuild's message (`PREBUILT_CLI_ERROR_ENV`), not every suite of the run.
 */
export default async function globalSetup(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'tidb-reconciler-cli-'));
  process.env[PREBUILT_CLI_DIR_ENV] = dir;
  try {
    process.env[PREBUILT_CLI_ENV] = await buildPrebuiltCli(join(dir, 'root'));
  } catch (error) {
    process.env[PREBUILT_CLI_ERROR_ENV] = error instanceof Error ? error.message : String(error);
  }
}
