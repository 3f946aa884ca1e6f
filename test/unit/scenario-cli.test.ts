import { describe, expect, it } from '@jest/globals';

import type { ParseSimulateArgsResult } from '../../lib/local/scenario/cli.js';
import { exitCodeFor, parseSimulateArgs, SIMULATE_HELP } from '../../lib/local/scenario/cli.js';
import { parseScenario } from '../../lib/local/scenario/file.js';
import { createProgress, describeEntry, formatClock, formatSpan } from '../../lib/local/scenario/progress.js';
import { ReportBuilder } from '../../lib/local/scenario/report.js';

const USAGE = 'tidb-reconciler simulate FILE.yaml [--out report.json] [--seed N] [--quiet]';

describe('simulate arguments: FILE, --out, --seed, --quiet', () => {
  it.each<{ name: string; argv: string[]; expected: ParseSimulateArgsResult }>([
    { name: 'a file alone runs with progress and the report on stdout', argv: ['s.yaml'], expected: { kind: 'run', options: { file: 's.yaml', quiet: false } } },
    { name: 'every option', argv: ['--quiet', 's.yaml', '--out', 'r.json', '--seed', '42'], expected: { kind: 'run', options: { file: 's.yaml', out: 'r.json', seed: 42, quiet: true } } },
    { name: 'options written with =', argv: ['s.yaml', '--out=r.json', '--seed=0'], expected: { kind: 'run', options: { file: 's.yaml', out: 'r.json', seed: 0, quiet: false } } },
    { name: '--help anywhere asks for help, whatever else is there', argv: ['--bogus', '--help'], expected: { kind: 'help' } },
    { name: '-h asks for help', argv: ['s.yaml', '-h'], expected: { kind: 'help' } },
    { name: 'a twin of a live cluster', argv: ['s.yaml', '--from-kubeconfig', 'k.yaml', 'demo/basic'], expected: { kind: 'run', options: { file: 's.yaml', quiet: false, from: { kubeconfig: 'k.yaml', namespace: 'demo', name: 'basic' } } } },
  ])('$name', ({ argv, expected }) => {
    expect(parseSimulateArgs(argv)).toEqual(expected);
  });

  it.each<{ name: string; argv: string[]; problem: string }>([
    { name: 'no file', argv: [], problem: 'missing FILE' },
    { name: 'two files', argv: ['a.yaml', 'b.yaml'], problem: 'only one FILE may be given, got "a.yaml" and "b.yaml"' },
    { name: 'an unknown option', argv: ['s.yaml', '--verbose'], problem: 'unknown option "--verbose"' },
    { name: '--out without a value', argv: ['s.yaml', '--out'], problem: '--out needs a value' },
    { name: '--out followed by another option', argv: ['s.yaml', '--out', '--quiet'], problem: '--out needs a value' },
    { name: '--out twice', argv: ['s.yaml', '--out', 'a', '--out', 'b'], problem: '--out is given twice' },
    { name: 'a seed that is not a number', argv: ['s.yaml', '--seed', 'abc'], problem: '--seed must be a whole number from 0 to 4294967295, got "abc"' },
    { name: 'a negative seed', argv: ['s.yaml', '--seed=-1'], problem: '--seed must be a whole number from 0 to 4294967295, got "-1"' },
    { name: 'a seed past 32 bits', argv: ['s.yaml', '--seed', '4294967296'], problem: '--seed must be a whole number from 0 to 4294967295, got "4294967296"' },
    { name: '--quiet with a value', argv: ['s.yaml', '--quiet=yes'], problem: 'unknown option "--quiet=yes"' },
    { name: '--from-kubeconfig without its cluster', argv: ['s.yaml', '--from-kubeconfig', 'k'], problem: '--from-kubeconfig needs the TidbCluster as NS/NAME after FILE' },
    { name: '--from-kubeconfig with a bad cluster', argv: ['s.yaml', '--from-kubeconfig', 'k', 'basic'], problem: '"basic" is not NS/NAME' },
    { name: '--from-kubeconfig without a file', argv: ['s.yaml', '--from-kubeconfig'], problem: '--from-kubeconfig needs a kubeconfig file' },
  ])('$name is an exit-2 error', ({ argv, problem }) => {
    expect(parseSimulateArgs(argv)).toEqual({ kind: 'error', exitCode: 2, error: `simulate: ${problem} (usage: ${USAGE}; see --help)` });
  });

  it('the help text gives the usage, the exit codes, every verb and fault kind, and points to the docs', () => {
    for (const text of [USAGE, 'Exit codes: 0', 'docs/SCENARIOS.md', 'default 30m', 'default 5m', 'node-0..node-N-1']) {
      expect(SIMULATE_HELP).toContain(text);
    }
    for (const verb of ['waitFor', 'patch', 'annotate', 'fault', 'heal', 'world', 'admin', 'advance', 'delete']) expect(SIMULATE_HELP).toContain(`- ${verb}:`);
    for (const kind of ['pod-down', 'pod-deleted', 'node-down', 'image-broken', 'pd-api-down', 'pd-schedulers-lost', 'pd-join-interrupted', 'kube-api-errors', 'step-crash', 'duplicate-delivery']) {
      expect(SIMULATE_HELP).toContain(kind);
    }
  });
});

describe('exit codes: 0 passed, 1 failed', () => {
  it.each([
    { name: 'a passed run exits 0', passed: true, code: 0 },
    { name: 'a failed run exits 1', passed: false, code: 1 },
  ])('$name', ({ passed, code }) => {
    expect(exitCodeFor({ passed })).toBe(code);
  });
});

describe('progress lines: one per entry start and end, stamped with virtual time; none when quiet', () => {
  const parsed = parseScenario(
    `name: t
cluster: {metadata: {name: basic}, spec: {pd: {replicas: 3}}}
timeline:
  - waitFor: ready
  - patch: {spec: {pd: {replicas: 5}}}
  - fault: {kind: kube-api-errors, rate: 0.2, for: 5m}
  - {waitFor: {component: pd, phase: Normal}, timeout: 20m}
`,
    't.yaml',
  );
  if (!parsed.ok) throw new Error(parsed.error);
  const [ready, patch, fault, phase] = parsed.scenario.timeline;
  if (!ready || !patch || !fault || !phase) throw new Error('four entries expected');

  it('a run prints start and end lines and a summary', () => {
    // Prepare
    const lines: string[] = [];
    const progress = createProgress({ quiet: false, write: (line) => lines.push(line) });
    const builder = new ReportBuilder('t');
    // Act
    progress.entryStarted(ready, 0);
    builder.startEntry(ready, 0);
    progress.entryFinished(ready, builder.endEntry(65_000, true));
    progress.entryStarted(phase, 65_000);
    builder.startEntry(phase, 65_000);
    progress.entryFinished(phase, builder.endEntry(1_265_000, false));
    progress.runFinished(builder.finish({ virtualMs: 1_265_000, wallMs: 10, steps: 40, invocationErrors: 0, invariants: [], final: { tidbcluster: null, objects: {}, pd: { members: [], leader: null, stores: [], schedulers: [] } } }));
    // Assess
    expect(lines).toEqual([
      '[     0s] #0 waitFor ready …',
      '[  1m05s] #0 waitFor ready … reached',
      '[  1m05s] #3 waitFor pd phase Normal …',
      '[ 21m05s] #3 waitFor pd phase Normal … FAILED: timed out after 20m',
      '[ 21m05s] t: FAILED (2 entries, 40 steps, 0 invariant violations; timeline[3] waitFor failed)',
    ]);
  });

  it('quiet writes nothing', () => {
    const lines: string[] = [];
    const progress = createProgress({ quiet: true, write: (line) => lines.push(line) });
    progress.entryStarted(ready, 0);
    progress.entryFinished(ready, { ok: true, endMs: 1 });
    expect(lines).toEqual([]);
  });

  it.each([
    { name: 'a patch shows its JSON', entry: patch, text: 'patch {"spec":{"pd":{"replicas":5}}}' },
    { name: 'a fault shows its kind and arguments', entry: fault, text: 'fault kube-api-errors rate 0.2 for 5m' },
  ])('$name', ({ entry, text }) => {
    expect(describeEntry(entry)).toBe(text);
  });

  it.each([
    { name: 'seconds', ms: 12_900, clock: '    12s', span: '12s900ms' },
    { name: 'minutes', ms: 65_000, clock: '  1m05s', span: '1m5s' },
    { name: 'hours', ms: 5_400_000, clock: '1h30m00s', span: '1h30m' },
    { name: 'zero', ms: 0, clock: '     0s', span: '0s' },
  ])('$name read as clock and as a duration', ({ ms, clock, span }) => {
    expect([formatClock(ms), formatSpan(ms)]).toEqual([clock, span]);
  });
});
