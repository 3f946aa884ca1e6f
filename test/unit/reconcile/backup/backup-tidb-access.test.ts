/**
 * A Backup's `from` / a Restore's `to` (TiDB access for the GC life time): the Job gets the password
 * Secret's `password` as BACKUP_MANAGER_PASSWORD, first in its env, as v1's makeBRBackupJob /
 * makeRestoreJob build it; a missing Secret or key is RetryFailed with v1's reasons
 * (GenerateTidbPasswordEnv, pkg/backup/util/util.go:346-375) and no Job.
 */
import { describe, expect, it } from '@jest/globals';
import { planBackup } from '../../../../lib/reconcile/backup/recipe.js';
import { planRestore } from '../../../../lib/reconcile/restore/recipe.js';
import { backup, backupSnap, created, envOf, restore, restoreSnap, written } from './fixtures.js';

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
});
