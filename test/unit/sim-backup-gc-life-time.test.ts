/**
 * The GC life time around a backup-manager run with `from` / `to` (release-1.6's
 * cmd/backup-manager/app/backup/manager.go `performBackup`, app/restore/manager.go `performRestore`):
 * Go's duration parser, TiDB's `mysql.tidb` row, and the run's writes and failure reasons against a
 * TiDB reached through its Service.
 */
import { describe, expect, it } from '@jest/globals';
import { formatGoDuration, parseGoDuration } from '../../lib/sim/tidb/go-duration.js';
import { TidbTable } from '../../lib/sim/tidb/sql-tidb-table.js';
import { NS, backupWorld, managerJob, newBackup } from './sim-backup-harness.js';

const backupArgs = (name: string): string[] => ['backup', `--namespace=${NS}`, `--backupName=${name}`, '--tikvVersion=v7.5.0', '--mode=snapshot'];
const failedOf = (obj: { status?: Record<string, unknown> }): { reason?: string; message?: string } | undefined => (obj.status?.conditions as { type: string; reason?: string; message?: string }[] | undefined)?.find((c) => c.type === 'Failed');
const S = 1_000_000_000n;

describe('Go durations', () => {
  it.each([
    { name: 'hours', text: '72h', ns: 72n * 3600n * S, back: '72h0m0s' },
    { name: 'TiDB\'s default', text: '10m0s', ns: 600n * S, back: '10m0s' },
    { name: 'a fraction of a unit', text: '1.5h', ns: 5400n * S, back: '1h30m0s' },
    { name: 'mixed units', text: '1h2m3s4ms', ns: 3723n * S + 4_000_000n, back: '1h2m3.004s' },
    { name: 'zero alone', text: '0', ns: 0n, back: '0s' },
    { name: 'a sign', text: '-90s', ns: -90n * S, back: '-1m30s' },
    { name: 'micro sign', text: '3µs', ns: 3_000n, back: '3µs' },
    { name: 'under a second', text: '500ms', ns: 500_000_000n, back: '500ms' },
  ])('$name: "$text" is $ns ns, printed $back', ({ text, ns, back }) => {
    // Act / Assert
    expect(parseGoDuration(text)).toBe(ns);
    expect(formatGoDuration(ns)).toBe(back);
  });

  it.each([
    { name: 'an empty string', text: '', message: 'time: invalid duration ""' },
    { name: 'a number without unit', text: '10', message: 'time: missing unit in duration "10"' },
    { name: 'an unknown unit', text: '3 days', message: 'time: unknown unit " days" in duration "3 days"' },
    { name: 'a unit without number', text: 'h', message: 'time: invalid duration "h"' },
    { name: 'more than int64 nanoseconds', text: '9999999999h', message: 'time: invalid duration "9999999999h"' },
  ])('$name is refused with Go\'s message', ({ text, message }) => {
    // Act / Assert
    expect(() => parseGoDuration(text)).toThrow(message);
  });
});

describe('mysql.tidb', () => {
  it.each([
    { name: 'TiDB\'s default', write: undefined, value: '10m0s', effectiveMs: 600_000, error: undefined },
    { name: 'a raised value', write: '72h', value: '72h', effectiveMs: 72 * 3600_000, error: undefined },
    { name: 'below the 10m minimum: the GC worker uses 10m', write: '1m', value: '1m', effectiveMs: 600_000, error: undefined },
    { name: 'unparsable: GC stops with the parse error', write: 'forever', value: 'forever', effectiveMs: undefined, error: 'time: invalid duration "forever"' },
  ])('$name: the GC worker reads $value', ({ write, value, effectiveMs, error }) => {
    // Prepare
    const table = new TidbTable(() => 5);

    // Act
    if (write !== undefined) table.statement(`update mysql.tidb set variable_value = '${write}' where variable_name = 'tikv_gc_life_time'`, { user: 'root', clientHost: '10.0.0.1' });

    // Assert
    const read = table.statement("select variable_value from mysql.tidb where variable_name= 'tikv_gc_life_time'", { user: 'root', clientHost: '10.0.0.1' });
    expect(read).toEqual({ rows: [[value]] });
    expect(table.gcLifeTime()).toEqual({ value, ...(effectiveMs === undefined ? {} : { effectiveMs }), ...(error === undefined ? {} : { error }) });
    expect(table.writes).toEqual(write === undefined ? [] : [{ atMs: 5, name: 'tikv_gc_life_time', value: write, user: 'root', clientHost: '10.0.0.1' }]);
  });

  it('an UPDATE of a row that does not exist changes nothing; a SELECT of it reads no row', () => {
    // Prepare
    const table = new TidbTable(() => 0);
    const client = { user: 'root', clientHost: '' };

    // Act
    table.statement("update mysql.tidb set variable_value = 'x' where variable_name = 'nope'", client);

    // Assert
    expect(table.writes).toEqual([]);
    expect(table.statement("select variable_value from mysql.tidb where variable_name= 'nope'", client)).toEqual({ rows: [] });
  });
});

describe('backup-manager with from: the GC life time', () => {
  const from = { host: 'basic-tidb', port: 4000, user: 'root', secretName: 'tidb-secret' };

  async function world(password = '') {
    const w = backupWorld({ tidb: true });
    w.store.create('Secret', { metadata: { name: 'tidb-secret', namespace: NS }, stringData: { password } });
    w.backups.datasets.setWorkload(NS, 'basic', 600);
    await w.clock.advance(60 * 60_000);
    return w;
  }

  it('raised to 72h for the run, set back to the old value after; Complete', async () => {
    // Prepare
    const w = await world();

    // Act
    newBackup(w.store, 'b1', { from });
    w.store.create('Job', managerJob('backup-b1', backupArgs('b1'), { serviceAccount: 'irsa', tidbSecret: 'tidb-secret' }));
    await w.clock.advance(60_000);
    const during = w.sql.tidbTable.value('tikv_gc_life_time');
    await w.clock.advance(10 * 60_000);

    // Assert
    expect(during).toBe('72h');
    expect(w.sql.tidbTable.value('tikv_gc_life_time')).toBe('10m0s');
    expect(w.sql.tidbTable.writes.map((x) => x.value)).toEqual(['72h', '10m0s']);
    expect(w.cr('Backup', 'b1').status?.phase).toBe('Complete');
  });

  it('BR failing (PD gone) still sets the old value back, then Failed BackupDataToRemoteFailed', async () => {
    // Prepare
    const w = await world();
    newBackup(w.store, 'b1', { from, tikvGCLifeTime: '24h' });
    w.store.create('Job', managerJob('backup-b1', backupArgs('b1'), { serviceAccount: 'irsa', tidbSecret: 'tidb-secret' }));
    await w.clock.advance(60_000);

    // Act
    w.pd.up = false;
    await w.clock.advance(10 * 60_000);

    // Assert
    expect(w.sql.tidbTable.writes.map((x) => x.value)).toEqual(['24h', '10m0s']);
    expect(failedOf(w.cr('Backup', 'b1'))?.reason).toBe('BackupDataToRemoteFailed');
  });

  it('TiDB unable to serve when BR ends: Failed ResetTikvGCLifeTimeFailed, not Complete, and the value stays raised', async () => {
    // Prepare
    const w = await world();
    newBackup(w.store, 'b1', { from });
    w.store.create('Job', managerJob('backup-b1', backupArgs('b1'), { serviceAccount: 'irsa', tidbSecret: 'tidb-secret' }));
    await w.clock.advance(60_000);

    // Act
    w.tidb.up = false;
    await w.clock.advance(10 * 60_000);

    // Assert
    const b = w.cr('Backup', 'b1');
    expect(b.status?.phase).toBe('Failed');
    expect(failedOf(b)).toEqual(expect.objectContaining({ reason: 'ResetTikvGCLifeTimeFailed', message: 'set cluster demo/b1 tikv_gc_life_time failed, sql: update mysql.tidb set variable_value = ? where variable_name = ?, err: Error 9005 (HY000): Region is unavailable' }));
    expect(w.sql.tidbTable.value('tikv_gc_life_time')).toBe('72h');
  });

  it.each([
    { name: 'a stored value Go cannot parse', stored: 'forever', spec: {}, tidbUp: true, reason: 'ParseOldTikvGCLifeTimeFailed', message: 'time: invalid duration "forever"' },
    { name: 'an unparsable tikvGCLifeTime', stored: undefined, spec: { tikvGCLifeTime: '72' }, tidbUp: true, reason: 'ParseConfiguredTikvGCLifeTimeFailed', message: 'time: missing unit in duration "72"' },
    { name: 'TiDB unable to read mysql.tidb', stored: undefined, spec: {}, tidbUp: false, reason: 'GetTikvGCLifeTimeFailed', message: 'query cluster demo/b1 tikv_gc_life_time failed, sql: select variable_value from mysql.tidb where variable_name= ?, err: Error 9005 (HY000): Region is unavailable' },
  ])('$name: Failed $reason before BR runs, nothing written', async ({ stored, spec, tidbUp, reason, message }) => {
    // Prepare
    const w = await world();
    if (stored !== undefined) w.sql.execute(`update mysql.tidb set variable_value = '${stored}' where variable_name = 'tikv_gc_life_time'`);
    const before = w.sql.tidbTable.writes.length;
    w.tidb.up = tidbUp;

    // Act
    newBackup(w.store, 'b1', { from, ...spec });
    w.store.create('Job', managerJob('backup-b1', backupArgs('b1'), { serviceAccount: 'irsa', tidbSecret: 'tidb-secret' }));
    await w.clock.advance(60_000);

    // Assert
    const b = w.cr('Backup', 'b1');
    expect(failedOf(b)).toEqual(expect.objectContaining({ reason, message }));
    expect((b.status?.conditions as { type: string }[]).map((c) => c.type)).not.toContain('Running');
    expect(w.sql.tidbTable.writes.length).toBe(before);
  });

  it('a wrong password: pings every 5 s for 30 minutes, then Failed ConnectTidbFailed before Prepare', async () => {
    // Prepare
    const w = await world('wrong');
    newBackup(w.store, 'b1', { from });
    w.store.create('Job', managerJob('backup-b1', backupArgs('b1'), { serviceAccount: 'irsa', tidbSecret: 'tidb-secret' }));

    // Act
    await w.clock.advance(29 * 60_000);
    const early = w.cr('Backup', 'b1').status?.phase;
    await w.clock.advance(2 * 60_000);

    // Assert
    expect(early).toBe('Scheduled');
    const b = w.cr('Backup', 'b1');
    expect(failedOf(b)).toEqual(expect.objectContaining({ reason: 'ConnectTidbFailed', message: 'timed out waiting for the condition' }));
    expect((b.status?.conditions as { type: string }[]).map((c) => c.type)).toEqual(['Scheduled', 'Failed']);
  });

  it('a Restore with to: raised for the restore and set back; Complete', async () => {
    // Prepare
    const w = await world();
    newBackup(w.store, 'b1', {});
    w.store.create('Job', managerJob('backup-b1', backupArgs('b1'), { serviceAccount: 'irsa' }));
    await w.clock.advance(10 * 60_000);

    // Act
    w.store.create('Restore', { metadata: { name: 'r1', namespace: NS }, spec: { to: from, tikvGCLifeTime: '48h', br: { cluster: 'fresh' }, s3: { provider: 'aws', region: 'us-west-2', bucket: 'backups', prefix: 'demo/b1' } } });
    w.store.create('Job', managerJob('restore-r1', ['restore', `--namespace=${NS}`, '--restoreName=r1', '--mode=snapshot'], { serviceAccount: 'irsa', container: 'restore', tidbSecret: 'tidb-secret' }));
    await w.clock.advance(10 * 60_000);

    // Assert
    expect(w.cr('Restore', 'r1').status?.phase).toBe('Complete');
    expect(w.sql.tidbTable.writes.map((x) => x.value)).toEqual(['48h', '10m0s']);
  });
});
