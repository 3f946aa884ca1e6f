/**
 * What the log-backup task looks like in PD's etcd, as TiDB Operator v1's tracker reads it
 * (`pkg/backup/backup/backup_tracker.go` `queryAllLogBackupKeys`, `pause_info.go` on release-1.6;
 * key layout of br/pkg/streamhelper/models.go in pingcap/tidb): the keys to read, the checkpoint
 * (8 bytes big-endian, anything else 0 — `tryParseCheckpoint`), whether the task is registered,
 * whether it is paused and why (`parsePauseReason`), and the kernel state that follows.
 *
 * Two deliberate differences from v1, both stricter: v1 reads each key as a prefix, so task `b1`
 * also matches `b10`'s keys; here `info` and `pause` are read exactly and the checkpoint under
 * `<task>/`. v1 ignores a failed key read (a transient PD error then reads as "task not found" and
 * fails the Backup); here any failed read fails the whole observation and nothing is concluded.
 * `last-error` is not read: v1 reads it and uses it nowhere.
 */

/** The prefix of every log-backup key in PD's etcd. */
export const BR_STREAM_PREFIX = '/tidb/br-stream';

/** The keys one task is read by (`key`, and whether it is a prefix). */
export function logKernelKeys(task: string): { readonly checkpoint: string; readonly info: string; readonly pause: string } {
  return { checkpoint: `${BR_STREAM_PREFIX}/checkpoint/${task}/`, info: `${BR_STREAM_PREFIX}/info/${task}`, pause: `${BR_STREAM_PREFIX}/pause/${task}` };
}

/** The task as the kernel has it. `checkpointTs` is a decimal TSO ("0" when none was written yet). */
export type LogKernelState = {
  readonly checkpointTs: string;
  readonly infoExists: boolean;
  readonly paused: boolean;
  /** "manual" for a pause by a person (or an empty V1 value), else the error that paused it. */
  readonly pauseReason: string;
};

/** The kernel state (running / paused) v1 derives from the pause key. */
export type KernelState = 'running' | 'paused';

/** What the reads returned: the first value under the checkpoint prefix, the info value, the pause value (undefined = no such key). */
export type LogKernelValues = { readonly checkpoint: Uint8Array | undefined; readonly info: Uint8Array | undefined; readonly pause: Uint8Array | undefined };

/** `tryParseCheckpoint`: 8 bytes big-endian as a decimal uint64; any other length (or none) is "0". */
export function tryParseCheckpoint(data: Uint8Array | undefined): string {
  if (data === undefined || data.length !== 8) return '0';
  let value = 0n;
  for (const byte of data) value = (value << 8n) | BigInt(byte);
  return value.toString();
}

/**
 * `parsePauseReason`: an empty value (BR's V1 pause) or a V2 pause of severity MANUAL is "manual";
 * a V2 error pause gives its payload's message (text/plain as is; a brpb.StreamBackupError as
 * "Paused by error(store N): message"); JSON that does not parse is "unknown"; a payload that
 * cannot be read is "error".
 */
export function parsePauseReason(raw: Uint8Array): string {
  if (raw.length === 0) return 'manual';
  let info: unknown;
  try {
    info = JSON.parse(Buffer.from(raw).toString('utf8'));
  } catch {
    return 'unknown';
  }
  if (info === null || typeof info !== 'object' || Array.isArray(info)) return 'unknown';
  const pause = info as { severity?: unknown; payload_type?: unknown; payload?: unknown };
  if (pause.severity === 'MANUAL') return 'manual';
  return pauseError(typeof pause.payload_type === 'string' ? pause.payload_type : '', typeof pause.payload === 'string' ? pause.payload : '') ?? 'error';
}

/** The message of a V2 pause payload (Go's `[]byte` crosses JSON as base64), or undefined when it cannot be read. */
function pauseError(payloadType: string, payloadBase64: string): string | undefined {
  const media = /^\s*([a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+)\s*((?:;\s*[a-z0-9_-]+\s*=\s*[^;]+)*)$/i.exec(payloadType);
  if (!media) return undefined;
  const type = (media[1] ?? '').toLowerCase();
  const params = new Map((media[2] ?? '').split(';').filter((p) => p.includes('=')).map((p) => p.split('=').map((s) => s.trim()) as [string, string]));
  const payload = Buffer.from(payloadBase64, 'base64').toString('utf8');
  if (type === 'text/plain') return payload;
  if (type !== 'application/x-protobuf' || params.get('messagetype') !== 'brpb.StreamBackupError') return undefined;
  try {
    const error = JSON.parse(payload) as { store_id?: unknown; error_message?: unknown };
    return `Paused by error(store ${typeof error.store_id === 'number' ? error.store_id : 0}): ${typeof error.error_message === 'string' ? error.error_message : ''}`;
  } catch {
    return undefined;
  }
}

/** The task's state from the values read. */
export function logKernelStateOf(values: LogKernelValues): LogKernelState {
  const paused = values.pause !== undefined;
  return { checkpointTs: tryParseCheckpoint(values.checkpoint), infoExists: values.info !== undefined, paused, pauseReason: paused && values.pause ? parsePauseReason(values.pause) : '' };
}

/** `getLogBackupKernelState`. */
export function kernelStateOf(state: LogKernelState): KernelState {
  return state.paused ? 'paused' : 'running';
}

/** `isCommandConsistentWithKernelState`: running ⇔ start / resume, paused ⇔ pause. */
export function isConsistentWithKernel(command: string, kernel: KernelState): boolean {
  return kernel === 'running' ? command === 'log-start' || command === 'log-resume' : command === 'log-pause';
}

/** `getCommandForKernelState`: the command whose Complete matches what the kernel does. */
export function commandForKernel(kernel: KernelState): 'log-pause' | 'log-resume' {
  return kernel === 'paused' ? 'log-pause' : 'log-resume';
}
