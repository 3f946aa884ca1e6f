/**
 * The exporter's mode at rest (lib/exporter/at-rest.ts, docs/adr/0030): the plan of a session from
 * the mode and the last session's verdict, the setting's parsing, and sessions against the
 * simulated object store (which replays events since a resourceVersion, as the API server's watch
 * cache does) on a virtual clock: a catch-up after a quiet session drains in seconds and ends; one
 * that finds a change forwards it and watches its whole period.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from '@jest/globals';

import { CATCH_UP_WATCH_SECONDS, coverageStaleMs, LAST_SESSION_RESOURCE, parseExporterAtRest, planSession, type ExporterAtRest, type SessionVerdict } from '../../lib/exporter/at-rest.js';
import { parseExporterEnv } from '../../lib/exporter/config.js';
import { COVERAGE_STALE_MS, readCoverage } from '../../lib/exporter/coverage.js';
import { watchedResources } from '../../lib/exporter/resources.js';
import { runExporterSession, type SessionResult } from '../../lib/exporter/session.js';
import { StoreWatchSource } from '../../lib/local/store-watch-source.js';
import { VirtualClock, settle } from '../../lib/platform/clock.js';
import { ConfigError } from '../../lib/platform/config.js';
import { MemoryLogger } from '../../lib/platform/logger.js';
import { MemoryReconcileQueue } from '../../lib/queue/memory.js';
import { ObjectStore } from '../../lib/sim/store.js';
import { MemoryStateStore } from '../support/memory-state.js';

const PERIOD_MS = 900_000;
const RUN_FOR_MS = PERIOD_MS - 10_000;
const RESOURCES = watchedResources().filter((r) => r.kind === 'Pod' || r.kind === 'StatefulSet');
const LABELS = { 'app.kubernetes.io/managed-by': 'tidb-operator', 'app.kubernetes.io/instance': 'basic' };
const pd = (ordinal: number) => ({ metadata: { name: `basic-pd-${ordinal}`, namespace: 'demo', labels: LABELS }, spec: { containers: [{ name: 'pd', image: 'pingcap/pd' }] } });

describe('the plan of a session', () => {
  it.each([
    { name: 'watching: always a full session, after a quiet one too', mode: 'watch', previous: 'quiet', plan: 'full' },
    { name: 'watching: a full session with no verdict', mode: 'watch', previous: undefined, plan: 'full' },
    { name: 'catching up: a catch-up after a quiet session', mode: 'catch-up', previous: 'quiet', plan: 'catch-up' },
    { name: 'catching up: a full session after a busy one', mode: 'catch-up', previous: 'busy', plan: 'full' },
    { name: 'catching up: a full session with no verdict (a first session)', mode: 'catch-up', previous: undefined, plan: 'full' },
  ] as { name: string; mode: ExporterAtRest; previous: SessionVerdict | undefined; plan: string }[])('$name', ({ mode, previous, plan }) => {
    expect(planSession(mode, previous)).toBe(plan);
  });

  it.each([
    { name: 'watching: three minutes', mode: 'watch', staleMs: COVERAGE_STALE_MS },
    { name: 'catching up: a period and three minutes', mode: 'catch-up', staleMs: PERIOD_MS + COVERAGE_STALE_MS },
  ] as { name: string; mode: ExporterAtRest; staleMs: number }[])("the watched-until mark's staleness, $name", ({ mode, staleMs }) => {
    expect(coverageStaleMs(mode, PERIOD_MS)).toBe(staleMs);
  });
});

describe('EXPORTER_AT_REST', () => {
  const env = { CLUSTER_NAME: 'eks', STATE_TABLE: 't', RECONCILE_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/1/q' };

  it.each([
    { name: 'unset: watch', raw: undefined, mode: 'watch' },
    { name: 'empty: watch', raw: ' ', mode: 'watch' },
    { name: 'watch', raw: 'watch', mode: 'watch' },
    { name: 'catch-up', raw: 'catch-up', mode: 'catch-up' },
  ])('$name', ({ raw, mode }) => {
    expect(parseExporterEnv({ ...env, ...(raw === undefined ? {} : { EXPORTER_AT_REST: raw }) }, 'daemon').atRest).toBe(mode);
  });

  it.each([
    { name: 'a misspelt mode', raw: 'catchup' },
    { name: 'another case', raw: 'Watch' },
  ])('$name is refused, naming the variable and the modes', ({ raw }) => {
    expect(parseExporterAtRest(raw)).toEqual({ ok: false, problem: `EXPORTER_AT_REST: ${JSON.stringify(raw)} is not one of watch, catch-up` });
    expect(() => parseExporterEnv({ ...env, EXPORTER_AT_REST: raw }, 'daemon')).toThrow(ConfigError);
    expect(() => parseExporterEnv({ ...env, EXPORTER_AT_REST: raw }, 'daemon')).toThrow(/EXPORTER_AT_REST: .* is not one of watch, catch-up/);
  });
});

/** A store with one PD pod, the exporter's checkpoints at its current version, and `previous` recorded. */
async function world(previous: SessionVerdict | undefined) {
  const clock = new VirtualClock(0);
  const store = new ObjectStore(clock);
  store.create('Namespace', { metadata: { name: 'demo' } });
  store.create('Pod', pd(0));
  const state = new MemoryStateStore();
  for (const r of RESOURCES) await state.putCheckpoint('eks', r.name, String(store.currentResourceVersion()));
  if (previous !== undefined) await state.putCheckpoint('eks', LAST_SESSION_RESOURCE, previous);
  const queue = new MemoryReconcileQueue({ clock, random: () => 0 });
  let watches = 0;
  const source = new StoreWatchSource(store, (verb) => (verb === 'watch' ? watches++ : undefined));
  return { clock, store, state, queue, source, watches: () => watches };
}

/** Runs one session of the mode, driving the virtual clock a second at a time until it returns. */
async function session(w: Awaited<ReturnType<typeof world>>, mode: ExporterAtRest): Promise<SessionResult> {
  const running = runExporterSession(
    { source: w.source, queue: w.queue, state: w.state, clock: w.clock, logger: new MemoryLogger(), random: () => 0 },
    { k8sCluster: 'eks', resources: RESOURCES, flushWindowMs: 1_000, checkpointIntervalMs: 0, watchTimeoutSeconds: 900, runForMs: RUN_FOR_MS, atRest: { mode, periodMs: PERIOD_MS } },
  );
  let result: SessionResult | undefined;
  void running.then((r) => (result = r));
  for (let t = 0; result === undefined && t <= PERIOD_MS; t += 1_000) {
    for (let i = 0; i < 30; i++) await settle();
    if (result === undefined) await w.clock.advance(1_000);
  }
  for (let i = 0; i < 30 && result === undefined; i++) await settle();
  if (result === undefined) throw new Error('the session did not return within its period');
  return result;
}

describe('a session in each mode', () => {
  it.each([
    { name: 'catching up after a quiet session, nothing changed: drains in seconds and ends quiet', mode: 'catch-up', previous: 'quiet', change: false, plan: 'catch-up', verdict: 'quiet', whole: false, sent: [] },
    { name: 'catching up after a quiet session, a change no one watched: forwarded, and the session stays its period', mode: 'catch-up', previous: 'quiet', change: true, plan: 'catch-up', verdict: 'busy', whole: true, sent: ['eks/demo/basic'] },
    { name: 'catching up after a busy session: watches its whole period, and ends quiet', mode: 'catch-up', previous: 'busy', change: false, plan: 'full', verdict: 'quiet', whole: true, sent: [] },
    { name: 'watching: its whole period whatever the last session', mode: 'watch', previous: 'quiet', change: false, plan: 'full', verdict: 'quiet', whole: true, sent: [] },
  ] as { name: string; mode: ExporterAtRest; previous: SessionVerdict; change: boolean; plan: string; verdict: string; whole: boolean; sent: string[] }[])('$name', async ({ mode, previous, change, plan, verdict, whole, sent }) => {
    // Prepare
    const w = await world(previous);
    if (change) w.store.create('Pod', pd(1));
    // Act
    const result = await session(w, mode);
    // Assess
    expect({ plan: result.plan, verdict: result.verdict }).toEqual({ plan, verdict });
    if (whole) expect(result.ranForMs).toBeGreaterThanOrEqual(RUN_FOR_MS);
    else expect(result.ranForMs).toBeLessThanOrEqual((CATCH_UP_WATCH_SECONDS + 2) * 1_000);
    expect((await w.queue.receive(10, 0)).map((r) => (JSON.parse(r.body) as { key: string }).key)).toEqual(sent);
    // One watch per kind while at rest (a catch-up that stays opens each again for the period).
    expect(w.watches()).toBe(plan === 'catch-up' && whole ? 2 * RESOURCES.length : RESOURCES.length);
    expect(await w.state.getCheckpoint('eks', LAST_SESSION_RESOURCE)).toBe(mode === 'catch-up' ? verdict : previous);
  });

  it.each([
    { name: 'catching up: the mark is good for a period and three minutes', mode: 'catch-up', previous: 'quiet', staleMs: PERIOD_MS + COVERAGE_STALE_MS },
    { name: 'watching: three minutes, as before', mode: 'watch', previous: undefined, staleMs: COVERAGE_STALE_MS },
  ] as { name: string; mode: ExporterAtRest; previous: SessionVerdict | undefined; staleMs: number }[])('the watched-until mark at the stop, $name', async ({ mode, previous, staleMs }) => {
    // Prepare
    const w = await world(previous);
    // Act
    await session(w, mode);
    // Assess
    expect(await readCoverage(w.state, 'eks')).toEqual({ atMs: w.clock.nowMs(), staleMs });
  });
});

describe('the deployment parameter', () => {
  const serverless = readFileSync(join(import.meta.dirname, '..', '..', 'serverless.yml'), 'utf8');

  it.each([
    { name: 'exporterAtRest defaults to watch, and that value parses', pattern: /^ {4}exporterAtRest: (\S+)$/m, want: 'watch' },
    { name: 'the exporter reads it as EXPORTER_AT_REST', pattern: /exporter:[\s\S]*?EXPORTER_AT_REST: (\S+)/, want: '${param:exporterAtRest}' },
  ])('$name', ({ pattern, want }) => {
    const value = pattern.exec(serverless)?.[1];
    expect(value).toBe(want);
    if (!value?.startsWith('$')) expect(parseExporterAtRest(value).ok).toBe(true);
  });
});
