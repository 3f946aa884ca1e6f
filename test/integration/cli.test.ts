import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');

function cli(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'tidb-reconciler.js'), ...args], { encoding: 'utf8', timeout: 60000, cwd: mkdtempSync(join(tmpdir(), 'cli-')) });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('the tidb-reconciler command', () => {
  it.each([
    { name: 'top level', args: ['--help'], want: 'Commands:' },
    { name: 'start', args: ['start', '--help'], want: 'Usage: tidb-reconciler start' },
    { name: 'sim serve', args: ['sim', 'serve', '--help'], want: 'Usage: tidb-reconciler sim serve' },
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

  it('start --once applies the example TidbCluster through the API and exits 0', () => {
    const r = cli(['start', '--once']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/applied TidbCluster demo\/basic \(uid [0-9a-f-]{36}, resourceVersion \d+\)/);
  });
});
