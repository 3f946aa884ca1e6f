/**
 * The sweep as the backstop for Backups, Restores and CompactBackups: their unfinished ones listed
 * page by page (lib/wiring/object-lister.ts) when the exporter may have missed events, each stepped
 * as a plain sweep step with its kind in the key, never a finished one.
 */
import { describe, expect, it } from '@jest/globals';

import { COVERAGE_STALE_MS } from '../../lib/exporter/coverage.js';
import type { KnownKind, KubeObject, ObjectPager, PageRequest, TidbClusterPage } from '../../lib/kube/port.js';
import type { Clock, TimerHandle } from '../../lib/platform/clock.js';
import { NotFoundError } from '../../lib/platform/errors.js';
import { MemoryLogger, silentLogger } from '../../lib/platform/logger.js';
import { MemoryMetrics } from '../../lib/platform/metrics.js';
import type { OutgoingMessage } from '../../lib/queue/port.js';
import { sweepChoice } from '../../lib/step/sweep-rest.js';
import { runSweep } from '../../lib/step/sweep.js';
import { isUnfinished, KubeObjectKeyLister, type SweptKind } from '../../lib/wiring/object-lister.js';

const NOW = Date.UTC(2026, 0, 1, 12);

const obj = (name: string, namespace: string, spec: Record<string, unknown> = {}, status?: Record<string, unknown>): KubeObject =>
  ({ metadata: { name, namespace, uid: `u-${name}` }, spec, ...(status ? { status } : {}) }) as KubeObject;
const cond = (type: string): Record<string, unknown> => ({ conditions: [{ type, status: 'True' }] });

describe('which listed objects are unfinished (the exporter\'s rules)', () => {
  it.each([
    { kind: 'Backup', object: obj('new', 'demo'), want: true },
    { kind: 'Backup', object: obj('done', 'demo', {}, { phase: 'Complete', ...cond('Complete') }), want: false },
    { kind: 'Backup', object: obj('failed', 'demo', {}, { phase: 'Failed', ...cond('Failed') }), want: false },
    { kind: 'Backup', object: obj('log', 'demo', { backupMode: 'log' }, { phase: 'Running' }), want: true },
    { kind: 'Backup', object: { ...obj('gone', 'demo', {}, { phase: 'Complete', ...cond('Complete') }), metadata: { name: 'gone', namespace: 'demo', deletionTimestamp: '2026-01-01T00:00:00Z' } } as KubeObject, want: true },
    { kind: 'Restore', object: obj('new', 'demo'), want: true },
    { kind: 'Restore', object: obj('done', 'demo', {}, { phase: 'Complete' }), want: false },
    { kind: 'Restore', object: obj('running', 'demo', {}, { phase: 'Running' }), want: false },
    { kind: 'Restore', object: obj('prune', 'demo', {}, { phase: 'PruneScheduled' }), want: true },
    { kind: 'CompactBackup', object: obj('new', 'demo'), want: true },
    { kind: 'CompactBackup', object: obj('done', 'demo', {}, { state: 'Complete' }), want: false },
  ] as { kind: SweptKind; object: KubeObject; want: boolean }[])('$kind $object.metadata.name: $want', ({ kind, object, want }) => {
    expect(isUnfinished(kind, object)).toBe(want);
  });
});

/** A pager over fixed objects per kind, `limit` at a time; a kind absent from `objects` answers 404. */
class FakePager implements ObjectPager {
  readonly requests: { kind: KnownKind; page: PageRequest }[] = [];
  constructor(private readonly objects: Partial<Record<KnownKind, KubeObject[]>>) {}

  async listObjectPage(kind: KnownKind, page: PageRequest): Promise<TidbClusterPage> {
    this.requests.push({ kind, page });
    const all = this.objects[kind];
    if (all === undefined) throw new NotFoundError(`${kind} not served`);
    const inNs = all.filter((o) => page.namespace === undefined || o.metadata.namespace === page.namespace);
    const from = Number(page.continue ?? '0');
    const items = inNs.slice(from, from + page.limit);
    const next = from + page.limit < inNs.length ? String(from + page.limit) : undefined;
    return { items, resourceVersion: '1', ...(next ? { continue: next } : {}) };
  }
}

describe('the object lister', () => {
  const objects = {
    Backup: [obj('b1', 'demo'), obj('b2', 'demo', {}, { phase: 'Complete', ...cond('Complete') }), obj('b3', 'team'), obj('b4', 'demo')],
    Restore: [obj('r1', 'demo', {}, { phase: 'Complete' }), obj('r2', 'team')],
    CompactBackup: [obj('c1', 'demo', {}, { state: 'Failed' })],
  };

  it('pages through every kind and keeps the unfinished, each with its kind in the key', async () => {
    const pager = new FakePager(objects);
    const keys = await new KubeObjectKeyLister(pager, 'eks', silentLogger, 2).listKeys();
    expect(keys).toEqual(['Backup:eks/demo/b1', 'Backup:eks/team/b3', 'Backup:eks/demo/b4', 'Restore:eks/team/r2']);
    expect(pager.requests.map((r) => [r.kind, r.page.continue ?? null])).toEqual([
      ['Backup', null],
      ['Backup', '2'],
      ['Restore', null],
      ['CompactBackup', null],
    ]);
  });

  it('namespace-scoped: one paged LIST per kind per watched namespace, none cluster-wide', async () => {
    const pager = new FakePager(objects);
    const keys = await new KubeObjectKeyLister(pager, 'eks', silentLogger, 2, ['team']).listKeys();
    expect(keys).toEqual(['Backup:eks/team/b3', 'Restore:eks/team/r2']);
    expect(pager.requests.every((r) => r.page.namespace === 'team')).toBe(true);
  });

  it('a kind the API server does not serve (no CRD) is skipped with a warning, the others listed', async () => {
    const logger = new MemoryLogger();
    const keys = await new KubeObjectKeyLister(new FakePager({ Backup: objects.Backup }), 'eks', logger).listKeys();
    expect(keys).toEqual(['Backup:eks/demo/b1', 'Backup:eks/team/b3', 'Backup:eks/demo/b4']);
    expect(logger.lines.filter((l) => l.message.startsWith('sweep skipped a kind')).map((l) => l.fields?.['kind'])).toEqual(['Restore', 'CompactBackup']);
  });
});

describe('the sweep steps the listed objects', () => {
  it.each([
    { name: 'a Backup key', key: 'Backup:eks/demo/b1' },
    { name: 'a Restore key', key: 'Restore:eks/demo/r1' },
    { name: 'a CompactBackup key', key: 'CompactBackup:eks/demo/c1' },
  ])('$name: a plain full step, with or without a mark or state', ({ key }) => {
    for (const watchedUntilMs of [undefined, NOW - 1_000]) {
      expect(sweepChoice({ key, state: undefined, listed: undefined, nowMs: NOW, watchedUntilMs, config: { fullReadIntervalMs: 3_600_000 } })).toEqual({ kind: 'full' });
    }
  });

  const clock: Clock = { nowMs: () => NOW, setTimer: (): TimerHandle => ({ id: 0 }), clearTimer: () => undefined, sleep: async () => undefined };

  it.each([
    { name: 'the exporter watching (mark fresh): TidbClusters only, no object LIST', mark: NOW - 30_000, lists: 0, keys: ['eks/demo/basic'] },
    { name: 'the exporter behind (mark stale): the unfinished objects too', mark: NOW - COVERAGE_STALE_MS - 1, lists: 1, keys: ['eks/demo/basic', 'Backup:eks/demo/b1', 'Restore:eks/demo/r1'] },
    { name: 'no mark ever recorded: the unfinished objects too', mark: undefined, lists: 1, keys: ['eks/demo/basic', 'Backup:eks/demo/b1', 'Restore:eks/demo/r1'] },
  ])('$name', async ({ mark, lists, keys }) => {
    const sent: OutgoingMessage[] = [];
    let objectLists = 0;
    const result = await runSweep(
      {
        lister: {
          listClusterKeys: async () => ['eks/demo/basic'],
          listObjectKeys: async () => {
            objectLists++;
            return ['Backup:eks/demo/b1', 'Restore:eks/demo/r1'];
          },
        },
        state: { getMany: async () => new Map() },
        queue: { send: async (messages) => void sent.push(...messages) },
        clock,
        logger: silentLogger,
        metrics: new MemoryMetrics(),
        watchedUntil: async () => mark,
      },
      { dueWithinMs: 60_000, fullReadIntervalMs: 3_600_000, fullReadSpreadMs: 0, spreadSeconds: 0 },
    );
    expect(objectLists).toBe(lists);
    expect(result.listed).toBe(keys.length);
    expect(sent.map((m) => [m.message.key, m.message.reason])).toEqual(keys.map((k) => [k, 'sweep']));
    expect(sent.filter((m) => m.message.key.includes(':')).every((m) => m.message.checkTidbOperator === undefined)).toBe(true);
  });
});
