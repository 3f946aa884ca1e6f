/**
 * PD's etcd gateway in the simulated PD (`POST /v3/kv/range`, grpc-gateway's JSON: base64 keys and
 * values, int64 as strings, zero values left out), read back with the reconciler's own request
 * builder and parser (lib/pd/etcd.ts), and the log-backup keys the simulated BR task keeps there:
 * info while registered, the global checkpoint at each flush, pause while paused, none once stopped.
 */
import { describe, expect, it } from '@jest/globals';
import { prefixEnd, toEntries } from '../../lib/pd/etcd.js';
import { tsoOf } from '../../lib/sim/backup/dataset.js';
import { tryParseCheckpoint } from '../../lib/reconcile/backup/log-kernel.js';
import { NS, START_MS, backupWorld, managerJob, newBackup } from './sim-backup-harness.js';
import { startCluster } from './tidb-pd-harness.js';

const rangeBody = (key: string, prefix = false) => ({ key: Buffer.from(key).toString('base64'), ...(prefix ? { range_end: prefixEnd(Buffer.from(key)).toString('base64') } : {}) });

describe('a prefix read ends where clientv3.GetPrefixRangeEnd ends it', () => {
  it.each([
    { name: 'the last byte raised', key: Buffer.from('/a/b/'), end: Buffer.from('/a/b0') },
    { name: 'trailing 0xff bytes dropped, the byte before raised', key: Buffer.from([0x61, 0xff, 0xff]), end: Buffer.from([0x62]) },
    { name: 'all 0xff: to the end of the key space (one zero byte)', key: Buffer.from([0xff, 0xff]), end: Buffer.from([0]) },
  ])('$name', ({ key, end }) => {
    expect(prefixEnd(key)).toEqual(end);
  });
});

describe("PD's etcd gateway: POST /v3/kv/range", () => {
  async function withKeys() {
    const world = await startCluster();
    world.pd.etcd.put('/tidb/br-stream/checkpoint/log/central_global', Buffer.from([0, 0, 0, 0, 0, 0, 0, 42]));
    world.pd.etcd.put('/tidb/br-stream/checkpoint/log/store/1', Buffer.from([0, 0, 0, 0, 0, 0, 0, 7]));
    world.pd.etcd.put('/tidb/br-stream/checkpoint/log10/central_global', Buffer.from([0, 0, 0, 0, 0, 0, 0, 99]));
    world.pd.etcd.put('/tidb/br-stream/pause/log', Buffer.alloc(0));
    return world;
  }

  it('a prefix read returns every key under it, sorted, and no key of another task sharing the name', async () => {
    const world = await withKeys();
    const res = world.call('POST', '/v3/kv/range', rangeBody('/tidb/br-stream/checkpoint/log/', true));
    expect(res.status).toBe(200);
    const entries = toEntries(JSON.parse(res.body), 'test');
    expect(entries.map((e) => e.key)).toEqual(['/tidb/br-stream/checkpoint/log/central_global', '/tidb/br-stream/checkpoint/log/store/1']);
    expect(tryParseCheckpoint(entries[0]?.value)).toBe('42');
    expect(JSON.parse(res.body)).toMatchObject({ header: { revision: expect.stringMatching(/^\d+$/) }, count: '2', kvs: [{ create_revision: expect.any(String), mod_revision: expect.any(String), version: '1' }, {}] });
  });

  it.each([
    { name: 'an empty value has no value field (zero values are left out)', key: '/tidb/br-stream/pause/log', kvs: [{ key: Buffer.from('/tidb/br-stream/pause/log').toString('base64'), version: '1' }] },
    { name: 'no match: the header alone, neither kvs nor count', key: '/tidb/br-stream/info/log', kvs: undefined },
  ])('$name', async ({ key, kvs }) => {
    const world = await withKeys();
    const res = world.call('POST', '/v3/kv/range', rangeBody(key));
    expect(res.status).toBe(200);
    const body = JSON.parse(res.body) as { kvs?: Record<string, unknown>[]; count?: string; header: unknown };
    if (kvs === undefined) {
      expect(body).not.toHaveProperty('kvs');
      expect(body).not.toHaveProperty('count');
    } else {
      expect(body.kvs).toEqual([expect.objectContaining(kvs[0] ?? {})]);
      expect(body.kvs?.[0]).not.toHaveProperty('value');
    }
  });

  it.each([
    { name: 'an unknown field', body: { key: 'YQ==', prefix: true }, status: 400, message: 'unknown field "prefix" in etcdserverpb.RangeRequest' },
    { name: 'a key that is not base64', body: { key: '%%%' }, status: 400, message: 'bad Base64 data in field key' },
    { name: 'no key', body: {}, status: 400, message: 'etcdserver: key is not provided' },
  ])('refused: $name', async ({ body, status, message }) => {
    const world = await withKeys();
    const res = world.call('POST', '/v3/kv/range', body);
    expect(res.status).toBe(status);
    expect(JSON.parse(res.body)).toEqual({ error: message, code: 3, message });
  });

  it('GET is not a range (the gateway takes POST only)', async () => {
    const world = await withKeys();
    expect(world.call('GET', '/v3/kv/range').status).toBe(405);
  });

  it('without a raft leader a linearizable read fails: 503, etcd request timed out', async () => {
    const world = await withKeys();
    for (const m of world.members.slice(1)) world.pd.members.setServing(m, false);
    const res = world.call('POST', '/v3/kv/range', rangeBody('/tidb/br-stream/pause/log'));
    expect(res.status).toBe(503);
    expect(JSON.parse(res.body)).toMatchObject({ code: 14, message: 'etcdserver: request timed out' });
  });
});

describe("the simulated log task's keys in PD's etcd", () => {
  const logArgs = (cmd: string): string[] => ['backup', `--namespace=${NS}`, '--backupName=log1', '--tikvVersion=v7.5.0', '--mode=log', `--subcommand=${cmd}`];
  const keys = (w: ReturnType<typeof backupWorld>) => w.etcd.range(Buffer.from('/tidb/br-stream/'), prefixEnd(Buffer.from('/tidb/br-stream/'))).map((kv) => kv.key.toString());

  it('start registers info; each flush writes the global checkpoint; pause adds the pause key, resume removes it; stop removes them all', async () => {
    // Prepare
    const w = backupWorld();
    newBackup(w.store, 'log1', { backupMode: 'log', s3: { provider: 'aws', bucket: 'backups', prefix: 'demo/log' } });

    // Act: start, then let two flushes pass
    w.store.create('Job', managerJob('backup-log1-log-start', logArgs('log-start'), { serviceAccount: 'irsa' }));
    await w.clock.advance(30_000);
    const started = keys(w);
    await w.clock.advance(2 * 60_000);
    const task = w.backups.logTasks.get(NS, 'basic', 'log1');
    const checkpoint = w.etcd.range(Buffer.from('/tidb/br-stream/checkpoint/log1/central_global'), Buffer.alloc(0))[0]?.value;

    // Assert
    expect(started).toEqual(['/tidb/br-stream/info/log1']);
    expect(task?.checkpointMs).toBeGreaterThan(START_MS + 60_000);
    expect(tryParseCheckpoint(checkpoint)).toBe(tsoOf(task?.checkpointMs ?? 0));

    // Act: pause, resume, stop
    w.store.create('Job', managerJob('backup-log1-log-pause', logArgs('log-pause'), { serviceAccount: 'irsa' }));
    await w.clock.advance(30_000);
    const paused = keys(w);
    const pauseValue = JSON.parse(w.etcd.range(Buffer.from('/tidb/br-stream/pause/log1'), Buffer.alloc(0))[0]?.value.toString() ?? '{}') as { severity?: string };
    w.store.create('Job', managerJob('backup-log1-log-resume', logArgs('log-resume'), { serviceAccount: 'irsa' }));
    await w.clock.advance(30_000);
    const resumed = keys(w);
    w.store.create('Job', managerJob('backup-log1-log-stop', logArgs('log-stop'), { serviceAccount: 'irsa' }));
    await w.clock.advance(30_000);

    // Assert
    expect(paused).toContain('/tidb/br-stream/pause/log1');
    expect(pauseValue.severity).toBe('MANUAL');
    expect(resumed).not.toContain('/tidb/br-stream/pause/log1');
    expect(keys(w)).toEqual([]);
  });
});
