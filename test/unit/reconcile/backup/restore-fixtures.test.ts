import { describe, expect, it } from '@jest/globals';

import { shouldEnqueueRestore } from '../../../../lib/reconcile/backup/enqueue.js';
import { validateRestore } from '../../../../lib/reconcile/backup/validate.js';
import { planRestore } from '../../../../lib/reconcile/restore/recipe.js';
import { ALLOW_RESTORE_INTO_DATA } from '../../../../lib/reconcile/restore/snapshot.js';
import type { Restore } from '../../../../lib/reconcile/backup/types.js';
import { argsOf, created, envOf, job, jobs, restore, restoreSnap, summary, written } from './fixtures.js';

const PITR = { restoreMode: 'pitr', pitrRestoredTs: '443123456789', pitrFullBackupStorageProvider: { s3: { bucket: 'backups', prefix: 'full' } } };

describe('Restore fixtures (R01–R07, v1 §2.5)', () => {
  it('R01: an empty Restore is Invalid InvalidSpec, terminal', () => {
    const plan = planRestore(restoreSnap({ ...restore(), spec: {} }));
    expect(written(plan)?.status.conditions).toContainEqual(expect.objectContaining({ type: 'Invalid', reason: 'InvalidSpec' }));
    expect(plan.outcome).toMatchObject({ kind: 'fail', terminal: true });
  });

  it('R02: a Lightning Restore (no br) is refused as Invalid: only BR restores are supported', () => {
    const plan = planRestore(restoreSnap({ ...restore(), spec: { s3: { bucket: 'b' }, env: [{ name: 'S3_PROVIDER', value: 'fake_provider' }] } }));
    expect(written(plan)?.status.conditions?.[0]?.message).toMatch(/^Lightning restores \(no spec\.br\) are not supported/);
    expect(created(plan)).toEqual([]);
  });

  it('R03: a valid BR Restore into a Ready, empty cluster creates restore-<name>, Scheduled; user env wins', () => {
    const plan = planRestore(restoreSnap(restore({ env: [{ name: 'BR_LOG_TO_TERM', value: 'value' }] })));
    const [create] = created(plan);
    expect(create?.object).toMatchObject({
      metadata: { name: 'restore-r1', labels: { 'app.kubernetes.io/name': 'restore', 'app.kubernetes.io/managed-by': 'restore-operator', 'app.kubernetes.io/component': 'restore', 'tidb.pingcap.com/restore': 'r1' } },
      spec: { backoffLimit: 0, template: { spec: { terminationGracePeriodSeconds: 10, containers: [{ name: 'restore' }] } } },
    });
    expect(create && envOf(create)['BR_LOG_TO_TERM']).toBe('value');
    expect(create && argsOf(create)).toEqual(['restore', '--namespace=demo', '--restoreName=r1', '--tikvVersion=v8.5.0', '--mode=snapshot']);
    expect(written(plan)?.status.phase).toBe('Scheduled');
  });

  it.each([
    { name: 'R04: PiTR waits while TiKV gc.ratio-threshold is 1.2', threshold: 1.2, want: 'retry' },
    { name: 'R04: PiTR waits while TiKV gc.ratio-threshold is unset', threshold: undefined, want: 'retry' },
    { name: 'R05: PiTR goes once it is -1', threshold: -1, want: 'wait' },
  ])('$name', ({ threshold, want }) => {
    const plan = planRestore(restoreSnap(restore(PITR), { tikvGcRatioThreshold: threshold }));
    expect(plan.outcome.kind).toBe(want);
    if (want === 'retry') {
      expect(plan.outcome).toMatchObject({ message: expect.stringContaining('config reset, waiting for configmap updated(wants = -1.0') });
      expect(plan.actions).toEqual([]);
    } else {
      const [create] = created(plan);
      expect(create && argsOf(create)).toEqual(expect.arrayContaining(['--mode=pitr', '--pitrRestoredTs=443123456789']));
    }
  });

  it('R06: a Complete Restore plans nothing', () => {
    const plan = planRestore(restoreSnap(restore(PITR, { status: { phase: 'Complete', conditions: [{ type: 'Complete', status: 'True' }] } }), { tikvGcRatioThreshold: -1 }));
    expect(plan.actions).toEqual([]);
    expect(plan.outcome.kind).toBe('complete');
  });

  it.each([
    { name: 'cluster missing', spec: { br: {} }, message: 'cluster should be configured for BR in spec of ns/r' },
    { name: 'bad type', spec: { br: { cluster: 'c' }, backupType: 'raw' }, message: 'invalid backup type raw for BR in spec of ns/r' },
    { name: 'db type without db', spec: { br: { cluster: 'c' }, backupType: 'db' }, message: 'DB should be configured for BR with restore type db in spec of ns/r' },
    { name: 'table type without table', spec: { br: { cluster: 'c', db: 'd' }, backupType: 'table' }, message: 'table should be configured for BR with restore type table in spec of ns/r' },
    { name: 'S3 without bucket', spec: { br: { cluster: 'c' }, s3: {} }, message: 'bucket should be configured for BR in spec of ns/r' },
    { name: 'PiTR with both a full backup and a start ts', spec: { br: { cluster: 'c' }, s3: { bucket: 'b' }, restoreMode: 'pitr', logRestoreStartTs: '1', pitrFullBackupStorageProvider: { s3: { bucket: 'b' } } }, message: 'pitrFullBackupStorageProvider and logRestoreStartTs option can only set one in spec of ns/r' },
    { name: 'valid', spec: { br: { cluster: 'c' }, s3: { bucket: 'b' } }, message: undefined },
  ])('R07: ValidateRestore at TiKV v4.0.8 — $name', ({ spec, message }) => {
    expect(validateRestore('ns', 'r', spec, 'v4.0.8')).toBe(message);
  });
});

describe('Restore: a Job failure, enqueue rules, and a target that holds data', () => {
  it('a failed restore Job fails the Restore AlreadyFailed with the Job reason (no retry, as v1)', () => {
    const plan = planRestore(restoreSnap(restore({}, { status: { phase: 'Running', conditions: [{ type: 'Running', status: 'True' }] } }), { jobs: jobs(job('restore-r1', 'Failed')) }));
    expect(written(plan)?.status.conditions).toContainEqual(expect.objectContaining({ type: 'Failed', reason: 'AlreadyFailed', message: 'Job restore-r1 has failed: BackoffLimitExceeded' }));
  });

  it.each([
    { phase: undefined, want: true },
    { phase: 'Running', want: false },
    { phase: 'Complete', want: false },
    { phase: 'PruneScheduled', want: true },
    { phase: 'Invalid', want: false },
  ])('a Restore in phase $phase is enqueued: $want', ({ phase, want }) => {
    expect(shouldEnqueueRestore(restore({}, phase === undefined ? {} : { status: { phase } }))).toBe(want);
  });

  it('a target holding user tables is refused: Failed TargetClusterNotEmpty, a Warning Event, no Job', () => {
    const plan = planRestore(restoreSnap(restore(), { targetData: { kind: 'holds-data', tables: ['shop.orders'] } }));
    expect(summary(plan)).toEqual(['update Restore r1', 'event TargetClusterNotEmpty']);
    expect(written(plan)?.status.conditions).toContainEqual(expect.objectContaining({ type: 'Failed', reason: 'TargetClusterNotEmpty', message: expect.stringContaining('shop.orders') }));
  });

  it('the Restore may say so explicitly: annotated, it restores into that cluster', () => {
    const r: Restore = restore({}, { metadata: { annotations: { [ALLOW_RESTORE_INTO_DATA]: 'true' } } } as Partial<Restore>);
    const plan = planRestore(restoreSnap(r, { targetData: { kind: 'holds-data', tables: ['shop.orders'] } }));
    expect(created(plan).map((c) => c.ref.name)).toEqual(['restore-r1']);
  });

  it('a target whose TiDB cannot be asked is asked again later, nothing written', () => {
    const plan = planRestore(restoreSnap(restore(), { targetData: { kind: 'unknown', why: 'timeout' } }));
    expect(plan.actions).toEqual([]);
    expect(plan.outcome).toMatchObject({ kind: 'retry' });
  });

  it('a running restore Job owns progress: the check is not repeated once it exists', () => {
    const plan = planRestore(restoreSnap(restore({}, { status: { phase: 'Scheduled' } }), { jobs: jobs(job('restore-r1')), targetData: { kind: 'holds-data', tables: ['shop.orders'] } }));
    expect(plan.actions).toEqual([]);
    expect(plan.outcome.kind).toBe('wait');
  });
});
