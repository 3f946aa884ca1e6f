/**
 * TiDB Operator's example manifests as a test: every TidbCluster manifest of its `examples/`
 * (release-1.6) that stands on its own is a scenario in test/scenarios/examples, holding the manifest
 * exactly as the fixture copy of the upstream file (test/fixtures/tidb-operator-examples) has it. Each
 * must reach Ready with no invariant broken, then stay Ready through ten quiet minutes in which the
 * reconciler writes nothing. The manifests that cannot stand alone are listed, with why, in
 * test/fixtures/tidb-operator-examples/README.md.
 */
import { describe, expect, it } from '@jest/globals';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

import { parseScenario } from '../../lib/local/scenario/file.js';
import { createProgress } from '../../lib/local/scenario/progress.js';
import type { ScenarioReport } from '../../lib/local/scenario/report.js';
import type { Scenario } from '../../lib/local/scenario/types.js';
import { SimStack } from '../../lib/local/sim-stack.js';
import { runScenario } from '../../lib/local/simulate.js';

const ROOT = join(import.meta.dirname, '..', '..');
const DIR = join(ROOT, 'test', 'scenarios', 'examples');
const FIXTURES = join(ROOT, 'test', 'fixtures', 'tidb-operator-examples');
const QUIET_MS = 10 * 60_000;

const files = readdirSync(DIR).filter((f) => f.endsWith('.yaml')).sort();

function load(file: string) {
  const parsed = parseScenario(readFileSync(join(DIR, file), 'utf8'), file);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.scenario;
}

/** The upstream paths a scenario's description names (`examples/<dir>/<file>.yaml`), in order. */
function sourcesOf(description: string): string[] {
  const found = [...description.matchAll(/(?<![\w/-])(examples\/\S+?\.yaml)/g)].map((m) => m[1] ?? '');
  if (found.length === 0) throw new Error(`the description names no examples/… source: ${description}`);
  return found;
}

/** The TidbCluster manifest of an upstream file, as its fixture copy holds it. */
function upstreamCluster(source: string): { metadata: Record<string, unknown> } | undefined {
  const docs = parseAllDocuments(readFileSync(join(FIXTURES, source.replace(/^examples\//, '')), 'utf8')).map((d) => d.toJS() as Record<string, unknown> | null);
  return docs.find((d) => d?.['kind'] === 'TidbCluster') as { metadata: Record<string, unknown> } | undefined;
}

/** Runs a scenario (with `change` applied); `inspect` sees the world before it stops. */
async function run(file: string, change: (s: Scenario) => Scenario = (s) => s, inspect: (stack: SimStack) => void = () => undefined): Promise<ScenarioReport> {
  const scenario = change(load(file));
  const stack = await SimStack.start(scenario, scenario.seed);
  try {
    const report = await runScenario(stack, createProgress({ quiet: true }));
    inspect(stack);
    return report;
  } finally {
    await stack.stop();
  }
}

describe("TiDB Operator's examples, unchanged", () => {
  it('there is one scenario per example that stands alone', () => {
    expect(files.length).toBeGreaterThanOrEqual(30);
  });

  it.each(files.map((file) => ({ name: file, file })))('$name holds its upstream manifests exactly', ({ file }) => {
    // Prepare
    const scenario = load(file);
    const upstream = sourcesOf(scenario.description).map(upstreamCluster);
    // Assess: the same manifests in order, the namespace filled in only when the example leaves it out.
    expect(upstream.every((u) => u !== undefined)).toBe(true);
    const want = upstream.map((u) => ({ ...u, metadata: { ...u?.metadata, namespace: (u?.metadata['namespace'] as string | undefined) ?? 'default' } }));
    expect(scenario.clusters).toEqual(want);
  });
});

describe("TiDB Operator's examples reach Ready and rest", () => {
  it.each(files.map((file) => ({ name: file, file })))(
    '$name: Ready, no invariant broken, then ten quiet minutes without a write',
    async ({ file }) => {
      const report = await run(file);
      expect(report.timeline.filter((t) => !t.ok)).toEqual([]);
      expect(report.invariants.flatMap((i) => i.violations)).toEqual([]);
      const quietFrom = report.virtualMs - QUIET_MS;
      const writes = report.actions.filter((a) => a.actor === 'reconciler' && a.atMs > quietFrom);
      expect(writes.map((a) => `${a.verb} ${a.kind ?? ''}/${a.name ?? ''}`)).toEqual([]);
    },
    600_000,
  );
});

describe("TiDB Operator's TLS examples through the API server's proxy", () => {
  const tlsFiles = files.filter((f) => f.includes('-tls-'));

  it('there are TLS examples (each reaches Ready above, with the functions in the cluster VPC)', () => {
    expect(tlsFiles.length).toBeGreaterThanOrEqual(2);
  });

  it.each(tlsFiles.slice(0, 1).map((file) => ({ name: file, file })))(
    '$name never gets Ready: its components refuse the proxy, and the cluster says why',
    async ({ file }) => {
      // Prepare: the functions outside the VPC, reaching components through the API server (COMPONENT_ACCESS=api-proxy).
      const viaProxy = (s: Scenario): Scenario => ({ ...s, config: { ...s.config, componentAccess: 'api-proxy' }, timeline: s.timeline.slice(0, 1) });
      let ready: { reason?: string; message?: string } | undefined;
      let warnings: string[] = [];
      // Act
      const report = await run(file, viaProxy, (stack) => {
        const tc = stack.world.store.list('TidbCluster')[0];
        ready = (tc?.status?.conditions as { type: string; reason?: string; message?: string }[] | undefined)?.find((c) => c.type === 'Ready');
        warnings = stack.world.store.list('Event').filter((e) => e['type'] === 'Warning').map((e) => `${String(e['reason'])}: ${String(e['message'])}`);
      });
      // Assess
      expect(report.timeline.filter((t) => !t.ok)).toHaveLength(1);
      expect(ready?.reason).toBe('PDRefusesClient');
      expect(ready?.message).toContain('requires a client certificate signed by the cluster CA');
      expect(warnings).toEqual(expect.arrayContaining([expect.stringContaining('ClientCertificateRefused: PD refused the reconciler in the TLS handshake')]));
      expect(warnings.join('\n')).toContain('remote error: tls: certificate required');
    },
    600_000,
  );
});
