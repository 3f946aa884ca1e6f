#!/usr/bin/env node
// Entry point of the `tidb-reconciler` command. The product needs Node 22 (the `node` devDependency),
// whatever Node runs this launcher, so it re-executes the TypeScript CLI through tsx on that binary,
// forwards SIGINT/SIGTERM to it (so `kill` stops the real process, not just this launcher) and exits
// with its exit code.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const node22 = join(root, 'node_modules', '.bin', 'node');
const nodeBin = existsSync(node22) ? node22 : process.execPath;
const tsxCli = join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs');
const child = spawn(nodeBin, [tsxCli, join(root, 'lib', 'cli', 'main.ts'), ...process.argv.slice(2)], { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => child.kill(signal));
}
child.on('error', (err) => {
  console.error(`tidb-reconciler: cannot start: ${err.message}`);
  process.exit(1);
});
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
