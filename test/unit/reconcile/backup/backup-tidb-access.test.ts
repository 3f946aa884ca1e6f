/**
 * A Backup's `from` / a Restore's `to` (TiDB access for the GC life time): the Job gets the password
 * Secret's `password` as BACKUP_MANAGER_PASSWORD, first in its env, as v1's makeBRBackupJob /
 * makeRestoreJob build it; a missing Secret or key is RetryFailed with v1's reasons
 * (GenerateTidbPasswordEnv, pkg/backup/util/util.go:346-375) and no Job.
 */
import { describe, expect, it } from '@jest/globals';
import { planBackup } from '../../../../lib/reconcile/backup/recipe.js';
import { planRestore } from '../../../../lib/reconcile/restore/recipe.js';
import type { TidbCluster } from '../../../../lib/model/kube.js';
import { argsOf, backup, backupSnap, created, envOf, readyTc, restore, restoreSnap, written } from './fixtures.js';

const FROM = { host: 'basic-tidb', port: 4000, user: 'root', secretName: 'tidb-secret' };

describe('TiDB access of backup and restore Jobs', () => {
  it.each([
    { name: 'a snapshot Backup with from', plan: () => planBackup(backupSnap(backup({ from: FROM }), { tidbSecretKeys: ['password'] })) },
    { name: 'a log Backup with from', plan: () => planBackup(backupSnap(backup({ from: FROM, backupMode: 'log' }), { tidbSecretKeys: ['password'] })) },
    { name: 'a Restore with to', plan: () => planRestore(restoreSnap(restore({ to: FROM }), { tidbSecretKeys: ['password'] })) },
  ])('$name: the Job reads the password from the Secret, the first env entry', ({ plan }) => {
    // Act
    const [create] = created(plan());

    // Assert
    const env = create ? envOf(create) : {};
    expect(Object.keys(env)[0]).toBe('BACKUP_MANAGER_PASSWORD');
    expect(env['BACKUP_MANAGER_PASSWORD']).toBe('ref:tidb-secret/password');
  });

  it('without from, no password env', () => {
    // Act
    const [create] = created(planBackup(backupSnap(backup())));

    // Assert
    expect(create && envOf(create)['BACKUP_MANAGER_PASSWORD']).toBeUndefined();
  });

  it.each([
    { name: 'Backup: the Secret does not exist', plan: () => planBackup(backupSnap(backup({ from: FROM }))), reason: 'GetTidbSecretFailed', message: 'backup demo/b1 get tidb secret tidb-secret failed, err: secrets "tidb-secret" not found' },
    { name: 'Backup: the Secret has no password key', plan: () => planBackup(backupSnap(backup({ from: FROM }), { tidbSecretKeys: ['user'] })), reason: 'KeyNotExist', message: 'backup demo/b1, tidb secret tidb-secret missing password key password' },
    { name: 'Restore: the Secret does not exist', plan: () => planRestore(restoreSnap(restore({ to: FROM }))), reason: 'GetTidbSecretFailed', message: 'backup demo/r1 get tidb secret tidb-secret failed, err: secrets "tidb-secret" not found' },
  ])('$name: RetryFailed $reason, no Job, retried', ({ plan, reason, message }) => {
    // Act
    const p = plan();

    // Assert
    expect(created(p)).toEqual([]);
    expect(written(p)?.status.conditions).toContainEqual(expect.objectContaining({ type: 'RetryFailed', reason, message }));
    expect(p.outcome).toMatchObject({ kind: 'fail' });
    expect(p.outcome).not.toMatchObject({ terminal: true });
  });

  const tlsTc = (client: Record<string, unknown>, annotations: Record<string, string> = {}) =>
    readyTc((tc) => ({ ...tc, metadata: { ...tc.metadata, annotations }, spec: { ...tc.spec, tidb: { ...tc.spec.tidb, tlsClient: client } } }) as TidbCluster);
  const volumesOf = (o: unknown): unknown[] => (o as { spec: { template: { spec: { volumes: unknown[] } } } }).spec.template.spec.volumes;

  it.each([
    { name: 'TiDB client TLS: --client-tls and <cluster>-tidb-client-secret mounted', tc: tlsTc({ enabled: true }), access: FROM, args: ['--client-tls=true'], secret: 'basic-tidb-client-secret' },
    { name: 'skipInternalClientCA: also --skipClientCA', tc: tlsTc({ enabled: true, skipInternalClientCA: true }), access: FROM, args: ['--client-tls=true', '--skipClientCA=true'], secret: 'basic-tidb-client-secret' },
    { name: 'tlsClientSecretName names the Secret', tc: tlsTc({ enabled: true }), access: { ...FROM, tlsClientSecretName: 'mine' }, args: ['--client-tls=true'], secret: 'mine' },
    { name: 'the skip-TLS annotation: plain', tc: tlsTc({ enabled: true }, { 'tidb.pingcap.com/skip-tls-when-connect-tidb': 'true' }), access: FROM, args: [], secret: undefined },
    { name: 'no from: plain even with TLS', tc: tlsTc({ enabled: true }), access: undefined, args: [], secret: undefined },
  ])('$name (v1 makeBRBackupJob)', ({ tc, access, args, secret }) => {
    // Act
    const [create] = created(planBackup(backupSnap(backup(access ? { from: access } : {}), { tc, tidbSecretKeys: ['password'] })));

    // Assert
    expect(create && argsOf(create).slice(5)).toEqual(args);
    const volume = volumesOf(create?.object).find((v) => (v as { name: string }).name === 'tidb-client-tls');
    expect(volume).toEqual(secret === undefined ? undefined : { name: 'tidb-client-tls', secret: { secretName: secret } });
  });

  it('a Restore with to against a TLS TiDB: --client-tls and the certificate', () => {
    // Act
    const [create] = created(planRestore(restoreSnap(restore({ to: FROM }), { tc: tlsTc({ enabled: true }), tidbSecretKeys: ['password'] })));

    // Assert
    expect(create && argsOf(create)).toContain('--client-tls=true');
    expect(volumesOf(create?.object)).toContainEqual({ name: 'tidb-client-tls', secret: { secretName: 'basic-tidb-client-secret' } });
  });
});
