/**
 * Log backup sub-commands (TiDB Operator v1's `pkg/apis/pingcap/v1alpha1/backup.go`): which one a Backup asks for now
 * (`ParseLogBackupSubcommand`, `backup.go:326-363`), whether it is already done, and how a
 * sub-command's condition merges into the whole status (`backup_status_updater.go:226-417`).
 */

import { withCondition } from './conditions.js';
import type { Backup, BackupCondition, BackupStatus } from './types.js';

/** The sub-commands the controller runs. */
export type LogSubcommand = 'log-start' | 'log-stop' | 'log-pause' | 'log-resume' | 'log-truncate' | 'log-unknown';

/** The sub-command the Backup asks for now (v1's resolution table, then truncate when due). */
export function resolveLogSubcommand(backup: Backup): LogSubcommand {
  const spec = backup.spec ?? {};
  const phase = backup.status?.phase ?? '';
  const asked = spec.logSubcommand ?? '';
  let command: LogSubcommand;
  if (asked === '') command = spec.logStop === true || phase === 'Stopped' ? 'log-stop' : phase === 'Paused' ? 'log-resume' : 'log-start';
  else if (asked === 'log-start') command = phase === 'Paused' ? 'log-resume' : 'log-start';
  else if (asked === 'log-stop' || asked === 'log-pause') command = asked;
  else return 'log-unknown';
  const until = spec.logTruncateUntil ?? '';
  if (isLogSynced(backup, command) && until !== '' && until !== (backup.status?.logSuccessTruncateUntil ?? '')) return 'log-truncate';
  return command;
}

/** "Already synced" (`backup.go:367-380`): start ⇔ commitTs set; stop ⇔ Stopped; pause ⇔ Paused; resume ⇔ Running. */
export function isLogSynced(backup: Backup, command: LogSubcommand): boolean {
  const phase = backup.status?.phase ?? '';
  switch (command) {
    case 'log-start':
      return (backup.status?.commitTs ?? '') !== '';
    case 'log-stop':
      return phase === 'Stopped';
    case 'log-pause':
      return phase === 'Paused';
    case 'log-resume':
      return phase === 'Running';
    case 'log-truncate':
    case 'log-unknown':
      return false;
    default: {
      const never: never = command;
      throw new TypeError(`unknown sub-command ${String(never)}`);
    }
  }
}

/**
 * `status` with a sub-command's condition merged as v1 merges it: the sub-status always; the top level
 * only for start (everything but Complete), stop (Complete as `Stopped`), pause (Complete as
 * `Paused`), resume (Complete as `Running`); truncate never touches the phase.
 */
export function withLogCondition(status: BackupStatus, command: LogSubcommand, condition: Omit<BackupCondition, 'lastTransitionTime' | 'command'>, nowMs: number): BackupStatus {
  const subs = { ...(status.logSubCommandStatuses ?? {}) };
  const sub = subs[command] ?? { command };
  subs[command] = withCondition({ ...sub, command }, { ...condition, command }, nowMs);
  const merged: BackupStatus = { ...status, logSubCommandStatuses: subs };
  const top = topLevelType(command, condition.type);
  return top === undefined ? merged : withCondition(merged, { ...condition, type: top, command }, nowMs);
}

function topLevelType(command: LogSubcommand, type: string): string | undefined {
  if (command === 'log-start') return type === 'Complete' ? undefined : type;
  if (type !== 'Complete') return undefined;
  if (command === 'log-stop') return 'Stopped';
  if (command === 'log-pause') return 'Paused';
  if (command === 'log-resume') return 'Running';
  return undefined;
}
