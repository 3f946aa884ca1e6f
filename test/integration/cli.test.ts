import { describe, expect, it } from '@jest/globals';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');

function cli(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'tidb-reconciler.js'), ...args], { encoding: 'utf8', timeout: 150_000, cwd: mkdtempSync(join(tmpdir(), 'cli-')) });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('the tidb-reconciler command', () => {
  it.each([
    { name: 'top level', args: ['--help'], want: 'Commands:' },
    { name: 'start', args: ['start', '--help'], want: 'Usage: tidb-reconciler start' },
    { name: 'sim serve', args: ['sim', 'serve', '--help'], want: 'Usage: tidb-reconciler sim serve' },
    { name: 'simulate', args: ['simulate', '--help'], want: 'Usage: tidb-reconciler simulate' },
  ])('every subcommand has --help: $name', ({ args, want }) => {
    const r = cli(args);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(want);
  });

  it.each([
    { name: 'unknown command', args: ['frobnicate'], want: 'unknown command "frobnicate"' },
    { name: 'bad port', args: ['sim', 'serve', '--port', 'http'], want: '--port: "http" is not a port number' },
    { name: 'bad duration', args: ['sim', 'serve', '--pod-startup', '5 minutes'], want: '--pod-startup: invalid duration "5 minutes"' },
    { name: 'unknown option', args: ['start', '--onse'], want: "Unknown option '--onse'" },
  ])('bad input exits 2 naming the problem: $name', ({ args, want }) => {
    const r = cli(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(want);
  });

  it('start --once brings the example TidbCluster to Ready through the real handlers and exits 0', () => {
    const r = cli(['start', '--once', '--timeout', '2m']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('applied TidbCluster demo/basic');
    expect(r.stdout).toMatch(/pd\s+3\s+3\s+Normal/);
    expect(r.stdout).toContain('Ready: True');
  });

  it('start --once exits 1 with the reason when the cluster cannot become Ready in time', () => {
    const r = cli(['start', '--once', '--timeout', '1s']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/not Ready within 1s: /);
  });

  it('start --kubeconfig runs the same stack against another API server (here a running sim serve)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cli-'));
    const kubeconfig = join(dir, 'kubeconfig');
    const server = spawn(process.execPath, [join(ROOT, 'bin', 'tidb-reconciler.js'), 'sim', 'serve', '--kubeconfig', kubeconfig], { stdio: 'ignore' });
    const exited = new Promise((resolve) => server.once('exit', resolve));
    try {
      for (let i = 0; i < 300 && !existsSync(kubeconfig); i++) await new Promise((r) => setTimeout(r, 100));
      const r = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
        const start = spawn(process.execPath, [join(ROOT, 'bin', 'tidb-reconciler.js'), 'start', '--once', '--timeout', '2m', '--kubeconfig', kubeconfig], { cwd: dir });
        let stdout = '';
        start.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
        start.on('exit', (code) => resolve({ code, stdout }));
      });
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('Ready: True');
    } finally {
      server.kill('SIGINT');
      await exited;
    }
  }, 180_000);
});
