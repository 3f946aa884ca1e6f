import { describe, expect, it } from '@jest/globals';

import { logKernelStateOf, parsePauseReason, tryParseCheckpoint, type LogKernelState } from '../../../../lib/reconcile/backup/log-kernel.js';
import { KERNEL_MISMATCH_ANNOTATION, LOG_TRACK_INTERVAL_MS, logTrackDueAtMs, type LogKernelObservation } from '../../../../lib/reconcile/backup/log-tracker.js';
import { planBackup } from '../../../../lib/reconcile/backup/recipe.js';
import type { Backup, BackupSpec, BackupStatus } from '../../../../lib/reconcile/backup/types.js';
import { T0, backup, backupSnap, summary, written } from './fixtures.js';

const be8 = (n: bigint): Buffer => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(n);
  return b;
};
const v2 = (info: Record<string, unknown>): Buffer => Buffer.from(JSON.stringify(info));
const b64 = (text: string): string => Buffer.from(text).toString('base64');
const PROTECTED = { finalizers: ['tidb.pingcap.com/backup-protection'] };
const running: BackupStatus = { phase: 'Running', commitTs: '443123456789', backupPath: 's3://backups/b1', conditions: [{ type: 'Running', status: 'True' }] };
const kernel = (over: Partial<LogKernelState> = {}): LogKernelObservation => ({ kind: 'read', state: { checkpointTs: '463267823616000000', infoExists: true, paused: false, pauseReason: '', ...over } });
const logBackup = (spec: Partial<BackupSpec> = {}, status: BackupStatus = running, annotations?: Record<string, string>): Backup =>
  backup({ backupMode: 'log', logSubcommand: 'log-start', ...spec }, { status, metadata: { ...PROTECTED, ...(annotations ? { annotations } : {}) } });

describe('B17 tryParseCheckpoint: 8 bytes big-endian, anything else 0', () => {
  it.each([
    { name: '8 bytes of 123456789', data: be8(123456789n), want: '123456789' },
    { name: 'all 0xFF', data: Buffer.alloc(8, 0xff), want: '18446744073709551615' },
    { name: 'zero', data: be8(0n), want: '0' },
    { name: '7 bytes', data: Buffer.alloc(7, 1), want: '0' },
    { name: '9 bytes', data: Buffer.alloc(9, 1), want: '0' },
    { name: '"invalid"', data: Buffer.from('invalid'), want: '0' },
    { name: 'no value', data: undefined, want: '0' },
  ])('$name → $want', ({ data, want }) => {
    expect(tryParseCheckpoint(data)).toBe(want);
  });
});

describe('B18 parsePauseReason', () => {
  it.each([
    { name: 'an empty value (V1 pause) is manual', raw: Buffer.alloc(0), want: 'manual' },
    { name: 'a V2 pause of severity MANUAL is manual', raw: v2({ severity: 'MANUAL', operation_hostname: 'h', operation_pid: 1 }), want: 'manual' },
    { name: 'a V2 error pause in text/plain gives its text', raw: v2({ severity: 'ERROR', payload_type: 'text/plain', payload: b64('Storage connection failed') }), want: 'Storage connection failed' },
    { name: 'text/plain with a charset', raw: v2({ severity: 'ERROR', payload_type: 'text/plain; charset=utf-8', payload: b64('Disk full error') }), want: 'Disk full error' },
    {
      name: 'a brpb.StreamBackupError names its store',
      raw: v2({ severity: 'ERROR', payload_type: 'application/x-protobuf; messagetype=brpb.StreamBackupError', payload: b64(JSON.stringify({ error_code: 'BR_001', error_message: 'Failed to backup: disk full', store_id: 5 })) }),
      want: 'Paused by error(store 5): Failed to backup: disk full',
    },
    { name: 'JSON that does not parse is unknown', raw: Buffer.from('{invalid json}'), want: 'unknown' },
    { name: 'an unsupported payload type is error', raw: v2({ severity: 'ERROR', payload_type: 'application/xml', payload: b64('<error/>') }), want: 'error' },
    { name: 'protobuf of another message type is error', raw: v2({ severity: 'ERROR', payload_type: 'application/x-protobuf; messagetype=other.Type', payload: b64('x') }), want: 'error' },
    { name: 'an invalid media type is error', raw: v2({ severity: 'ERROR', payload_type: 'not a valid mime type', payload: b64('test') }), want: 'error' },
    { name: 'an unknown severity still gives its text', raw: v2({ severity: 'UNKNOWN', payload_type: 'text/plain', payload: b64('test message') }), want: 'test message' },
  ])('$name', ({ raw, want }) => {
    expect(parsePauseReason(raw)).toBe(want);
  });

  it('the kernel state: paused with its reason when the pause key exists, registered when info exists', () => {
    expect(logKernelStateOf({ checkpoint: be8(999999n), info: Buffer.from('x'), pause: undefined })).toEqual({ checkpointTs: '999999', infoExists: true, paused: false, pauseReason: '' });
    expect(logKernelStateOf({ checkpoint: undefined, info: undefined, pause: Buffer.alloc(0) })).toEqual({ checkpointTs: '0', infoExists: false, paused: true, pauseReason: 'manual' });
  });
});

describe('B16 kernel consistency: a mismatch acts only when seen on two reads in a row for the same command', () => {
  const pausedAsked = (annotations?: Record<string, string>) => logBackup({ logSubcommand: 'log-pause' }, { ...running, phase: 'Paused' }, annotations);

  it('first read: no status write, the mismatch is remembered', () => {
    const plan = planBackup(backupSnap(pausedAsked(), { logKernel: kernel() }));
    const update = written(plan) as { metadata: { annotations?: Record<string, string> }; status: BackupStatus } | undefined;
    expect(update?.status).toEqual(pausedAsked().status);
    expect(update?.metadata.annotations).toEqual({ [KERNEL_MISMATCH_ANNOTATION]: 'log-pause' });
    expect(summary(plan)).toEqual(['update Backup b1']);
  });

  it('second read: one write, Complete of the kernel command (log-resume, reason LogBackupKernelSync), flag cleared', () => {
    const plan = planBackup(backupSnap(pausedAsked({ [KERNEL_MISMATCH_ANNOTATION]: 'log-pause' }), { logKernel: kernel() }));
    const update = written(plan) as { metadata: { annotations?: Record<string, string> }; status: BackupStatus } | undefined;
    expect(summary(plan)).toEqual(['update Backup b1']);
    expect(update?.metadata.annotations).toEqual({});
    expect(update?.status.phase).toBe('Running');
    expect(update?.status.logSubCommandStatuses?.['log-resume']?.conditions).toContainEqual(expect.objectContaining({ type: 'Complete', reason: 'LogBackupKernelSync', message: 'Synced with kernel state: running' }));
  });

  it.each([
    { name: 'consistent again: the flag is cleared and nothing else changes', logKernel: kernel({ paused: true, pauseReason: 'manual' }), flag: 'log-pause', annotations: {} },
    { name: 'flag of another command: counted as a first sighting for this one', logKernel: kernel(), flag: 'log-start', annotations: { [KERNEL_MISMATCH_ANNOTATION]: 'log-pause' } },
  ])('$name', ({ logKernel, flag, annotations }) => {
    const plan = planBackup(backupSnap(pausedAsked({ [KERNEL_MISMATCH_ANNOTATION]: flag }), { logKernel }));
    const update = written(plan) as { metadata: { annotations?: Record<string, string> }; status: BackupStatus } | undefined;
    expect(update?.metadata.annotations).toEqual(annotations);
    expect(update?.status.phase).toBe('Paused');
  });
});

describe('the checkpoint tracker (§1.9)', () => {
  it('a running log backup read from PD: logCheckpointTs and timeSynced, next read one interval later', () => {
    const plan = planBackup(backupSnap(logBackup(), { logKernel: kernel() }));
    expect(written(plan)?.status).toMatchObject({ logCheckpointTs: '463267823616000000', timeSynced: '2026-01-01T00:00:00Z', phase: 'Running' });
    expect(plan.nextWakeAtMs).toBe(T0 + LOG_TRACK_INTERVAL_MS);
  });

  it.each([
    { name: 'a checkpoint of 0 (none advanced yet) writes nothing', status: running, logKernel: kernel({ checkpointTs: '0' }) },
    { name: 'a Paused backup keeps its checkpoint (v1 writes it while Running only)', status: { ...running, phase: 'Paused' }, logKernel: kernel({ paused: true, pauseReason: 'manual' }) },
  ])('$name', ({ status, logKernel }) => {
    const spec = status.phase === 'Paused' ? { logSubcommand: 'log-pause' } : {};
    const plan = planBackup(backupSnap(logBackup(spec, status), { logKernel }));
    expect(plan.actions).toEqual([]);
    expect(plan.nextWakeAtMs).toBe(T0 + LOG_TRACK_INTERVAL_MS);
  });

  it('a failed read: one Warning Event, no status write, the next read one interval later', () => {
    const plan = planBackup(backupSnap(logBackup(), { logKernel: { kind: 'failed', message: 'PD etcd range timed out after 5000 ms' } }));
    expect(summary(plan)).toEqual(['event LogBackupTrackFailed']);
    expect(plan.nextWakeAtMs).toBe(T0 + LOG_TRACK_INTERVAL_MS);
    expect(plan.outcome.kind).toBe('wait');
  });

  it('not due: nothing read, nothing written, woken when due', () => {
    const plan = planBackup(backupSnap(logBackup(), { logKernel: { kind: 'notDue', dueAtMs: T0 + 42_000 } }));
    expect(plan.actions).toEqual([]);
    expect(plan.nextWakeAtMs).toBe(T0 + 42_000);
  });

  it.each([
    { name: 'the task missing from PD fails the start (LogBackupTaskNotFound)', logKernel: kernel({ infoExists: false }), phase: 'Failed', reason: 'LogBackupTaskNotFound', event: 'event LogBackupTaskNotFound' },
    { name: 'paused by an error is RetryFailed (LogBackupErrorPaused)', logKernel: kernel({ paused: true, pauseReason: 'Paused by error(store 5): disk full' }), phase: 'RetryFailed', reason: 'LogBackupErrorPaused', event: 'event LogBackupErrorPaused' },
  ])('$name', ({ logKernel, phase, reason, event }) => {
    const plan = planBackup(backupSnap(logBackup(), { logKernel }));
    expect(written(plan)?.status.phase).toBe(phase);
    expect(written(plan)?.status.conditions).toContainEqual(expect.objectContaining({ type: phase, reason }));
    expect(summary(plan)).toContain(event);
  });
});

describe('when the tracker reads PD', () => {
  const synced = { ...running, timeSynced: '2026-01-01T00:00:00Z' };
  it.each([
    { name: 'never synced and no pending wake-up: now', b: logBackup(), stored: undefined, now: T0, want: T0 },
    { name: 'synced: one interval later', b: logBackup({}, synced), stored: undefined, now: T0 + 10_000, want: T0 + LOG_TRACK_INTERVAL_MS },
    { name: 'a wake-up still to come holds an event-woken step back (the echo of the last write)', b: logBackup(), stored: T0 + 30_000, now: T0 + 1_000, want: T0 + 30_000 },
    { name: 'the wake-up itself is due', b: logBackup({}, synced), stored: T0 + LOG_TRACK_INTERVAL_MS, now: T0 + LOG_TRACK_INTERVAL_MS, want: T0 + LOG_TRACK_INTERVAL_MS },
    { name: 'not started (no commitTs): never', b: logBackup({}, { phase: 'Scheduled' }), stored: undefined, now: T0, want: undefined },
    { name: 'Stopped: never', b: logBackup({ logSubcommand: 'log-stop' }, { ...running, phase: 'Stopped' }), stored: undefined, now: T0, want: undefined },
    { name: 'a snapshot backup: never', b: backup({}, { status: { phase: 'Running' } }), stored: undefined, now: T0, want: undefined },
    { name: 'being deleted: never', b: { ...logBackup(), metadata: { ...logBackup().metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } }, stored: undefined, now: T0, want: undefined },
  ])('$name', ({ b, stored, now, want }) => {
    expect(logTrackDueAtMs(b, stored, now)).toBe(want);
  });
});
