import { describe, expect, it } from '@jest/globals';

import { resolveLogSubcommand } from '../../../../lib/reconcile/backup/log-subcommand.js';
import { planBackup } from '../../../../lib/reconcile/backup/recipe.js';
import type { BackupSpec, BackupStatus } from '../../../../lib/reconcile/backup/types.js';
import { argsOf, backup, backupSnap, created, job, jobs, summary, written } from './fixtures.js';

const log = (spec: Partial<BackupSpec> = {}): Partial<BackupSpec> => ({ backupMode: 'log', ...spec });
const started: BackupStatus = { phase: 'Running', commitTs: '443123456789', backupPath: 's3://backups/b1', conditions: [{ type: 'Running', status: 'True' }] };

describe('log backup sub-commands (§1.9)', () => {
  it.each([
    { name: 'nothing asked: start', spec: log(), status: {}, want: 'log-start' },
    { name: 'logStop: stop', spec: log({ logStop: true }), status: started, want: 'log-stop' },
    { name: 'start asked while Paused: resume', spec: log({ logSubcommand: 'log-start' }), status: { ...started, phase: 'Paused' }, want: 'log-resume' },
    { name: 'pause asked', spec: log({ logSubcommand: 'log-pause' }), status: started, want: 'log-pause' },
    { name: 'started and a new truncate point: truncate', spec: log({ logSubcommand: 'log-start', logTruncateUntil: '443123456790' }), status: started, want: 'log-truncate' },
    { name: 'an unknown sub-command', spec: log({ logSubcommand: 'log-rewind' }), status: {}, want: 'log-unknown' },
  ])('$name', ({ spec, status, want }) => {
    expect(resolveLogSubcommand(backup(spec, { status }))).toBe(want);
  });

  it('log-start creates backup-<name>-log-start and shows Scheduled at the top level', () => {
    const plan = planBackup(backupSnap(backup(log({ commitTs: '443123456700' }))));
    const [create] = created(plan);
    expect(create?.ref.name).toBe('backup-b1-log-start');
    expect(create && argsOf(create)).toEqual(['backup', '--namespace=demo', '--backupName=b1', '--tikvVersion=v8.5.0', '--mode=log', '--subcommand=log-start', '--commit-ts=443123456700']);
    const status = written(plan)?.status;
    expect(status?.phase).toBe('Scheduled');
    expect(status?.['logSubCommandStatuses']).toMatchObject({ 'log-start': { command: 'log-start', phase: 'Scheduled' } });
    expect(written(plan)?.metadata.finalizers).toEqual(['tidb.pingcap.com/backup-protection']);
  });

  it('stop waits for log-start to produce commitTs', () => {
    const plan = planBackup(backupSnap(backup(log({ logSubcommand: 'log-stop' }), { status: { phase: 'Scheduled' } })));
    expect(created(plan)).toEqual([]);
    expect(plan.outcome).toMatchObject({ kind: 'retry', message: 'log-stop waits for log-start to finish' });
  });

  it('truncate runs with --truncate-until and leaves the phase alone', () => {
    const b = backup(log({ logTruncateUntil: '443123456800' }), { status: started, metadata: { finalizers: ['tidb.pingcap.com/backup-protection'] } });
    const plan = planBackup(backupSnap(b));
    const [create] = created(plan);
    expect(create && argsOf(create)).toContain('--truncate-until=443123456800');
    expect(written(plan)?.status.phase).toBe('Running');
    expect(written(plan)?.status['logSubCommandStatuses']).toMatchObject({ 'log-truncate': { phase: 'Scheduled', logTruncatingUntil: '443123456800' } });
  });

  it('a truncate point at or before commitTs is Complete at once, no Job', () => {
    const b = backup(log({ logTruncateUntil: '443123456000' }), { status: started, metadata: { finalizers: ['tidb.pingcap.com/backup-protection'] } });
    const plan = planBackup(backupSnap(b));
    expect(created(plan)).toEqual([]);
    expect(written(plan)?.status['logSubCommandStatuses']).toMatchObject({ 'log-truncate': { phase: 'Complete', logTruncatingUntil: '443123456000' } });
  });

  it('a failed stop Job is shown Failed in its sub-status (v1 hides it) and not re-run', () => {
    const b = backup(log({ logSubcommand: 'log-stop' }), { status: started, metadata: { finalizers: ['tidb.pingcap.com/backup-protection'] } });
    const plan = planBackup(backupSnap(b, { jobs: jobs(job('backup-b1-log-stop', 'Failed')) }));
    expect(written(plan)?.status['logSubCommandStatuses']).toMatchObject({ 'log-stop': { phase: 'Failed', conditions: [expect.objectContaining({ reason: 'AlreadyFailed' })] } });
    expect(summary(plan)).toEqual(['update Backup b1', 'event AlreadyFailed']);
    // Stepped again: the failed Job is kept, nothing re-run, nothing written.
    const again = planBackup(backupSnap({ ...b, status: written(plan)?.status as never }, { jobs: jobs(job('backup-b1-log-stop', 'Failed')) }));
    expect(again.actions).toEqual([]);
    expect(again.outcome).toMatchObject({ kind: 'complete', message: expect.stringContaining('delete the Job to run log-stop again') });
  });

  it('once the failed Job is deleted, the sub-command runs again', () => {
    const status = { ...started, logSubCommandStatuses: { 'log-stop': { command: 'log-stop', phase: 'Failed' } } };
    const plan = planBackup(backupSnap(backup(log({ logSubcommand: 'log-stop' }), { status, metadata: { finalizers: ['tidb.pingcap.com/backup-protection'] } })));
    expect(created(plan).map((c) => c.ref.name)).toEqual(['backup-b1-log-stop']);
  });

  it('an unknown sub-command is RetryFailed with v1 message', () => {
    const plan = planBackup(backupSnap(backup(log({ logSubcommand: 'log-rewind' }))));
    expect(written(plan)?.status.conditions).toContainEqual(expect.objectContaining({ type: 'RetryFailed', message: 'log backup subcommand `log-rewind` is not supported' }));
    expect(plan.outcome.kind).toBe('fail');
  });

  it('deleting a running log backup stops its task first with stop-<name>, whatever the policy', () => {
    const b = backup(log(), { status: started, metadata: { deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['tidb.pingcap.com/backup-protection'] } });
    const plan = planBackup(backupSnap(b));
    expect(created(plan).map((c) => c.ref.name)).toEqual(['stop-b1']);
    expect(written(plan)?.metadata.finalizers).toEqual(['tidb.pingcap.com/backup-protection']);
  });
});
