/**
 * The `tidb-reconciler` command, transpiled once per jest run, for the tests that start it only to
 * drive something else (`sim serve` for kubectl, `start` against it, the CLI's argument errors).
 *
 * `bin/tidb-reconciler.js` runs lib/cli/main.ts through tsx: every start resolves and loads its ~700
 * modules through tsx's loader hooks (about 1 s of CPU of the 2 s a start costs here) in a third
 * process. The run's global setup (test/support/global-setup.ts) instead transpiles lib/ and
 * functions/ with esbuild — the compiler tsx uses — file by file into a directory that mirrors the
 * repository (every other top-level entry, and every file of lib/ that is not TypeScript, a symlink
 * to the original), so each module's `import.meta.url` reads its data files (CRDs, OpenAPI, infra/,
 * package.json) where it always does, and Node loads the `.js` files natively (no source maps: they
 * cost a quarter of a second a start; a stack trace names each module by its own path, with .js for .ts). The tests of the command's own entry point (its launcher,
 * `npm start`, signal forwarding, `start --once`) keep spawning `bin/tidb-reconciler.js`.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PREBUILT_CLI_ENV, PREBUILT_CLI_ERROR_ENV } from './global-setup.js';

const ROOT = join(import.meta.dirname, '..', '..');

/** The Node the launcher runs the command on (the `node` devDependency, else this process's). */
const NODE = existsSync(join(ROOT, 'node_modules', '.bin', 'node')) ? join(ROOT, 'node_modules', '.bin', 'node') : process.execPath;

/**
 * The executable and leading arguments that run `tidb-reconciler …` from the prebuilt copy: append
 * the command's own arguments. Throws when the run's global setup (jest.config.js) did not build it,
 * with its reason.
 */
export function prebuiltCli(): { command: string; args: string[] } {
  const failed = process.env[PREBUILT_CLI_ERROR_ENV];
  if (failed !== undefined) throw new Error(`the run's global setup could not build the command: ${failed}`);
  const entry = process.env[PREBUILT_CLI_ENV];
  if (entry === undefined || !existsSync(entry)) throw new Error(`${PREBUILT_CLI_ENV} names no prebuilt command (${String(entry)}): run jest with -c jest.config.js, whose global setup builds it`);
  return { command: NODE, args: [entry] };
}
