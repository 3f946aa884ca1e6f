/**
 * The simulated `pingcap/tidb-backup-manager` image: a container of that image (any registry, any
 * tag) runs the sub-command its args name, as v1's cmd/backup-manager does —
 * `backup --namespace --backupName [--tikvVersion] --mode=snapshot|log [--subcommand …]
 * [--cluster-tls=true]`, `restore --namespace --restoreName --mode=snapshot|pitr [--pitrRestoredTs]`,
 * `clean --namespace --backupName`, `compact --namespace --resourceName` — reading and writing its
 * custom resource as the pod's service account. Modes the simulation does not model
 * (volume-snapshot, Dumpling `export`, `import`) exit 1 saying so.
 */
import type { KubeObject } from '../object.js';
import type { ContainerRuntime, ProcessHooks, SimProcess } from '../runtime.js';
import type { BackupContext } from './cluster.js';
import { compactRun } from './compact.js';
import { logBackup } from './log-backup.js';
import type { LogTasks } from './log-tasks.js';
import { type Script, ScriptProcess } from './process.js';
import { restoreRun } from './restore.js';
import { type ManagerArgs, cleanBackup, snapshotBackup } from './snapshot.js';
import { CrClient } from './status.js';

/** Whether an image is TiDB Operator's backup-manager. */
export function isBackupManagerImage(image: string): boolean {
  return /(^|\/)tidb-backup-manager(:[^/]*|@.*)?$/.test(image);
}

/** The sub-command and `--key=value` flags of an args list (`--flag` alone is `true`). */
export function parseManagerArgs(args: readonly string[]): { command: string; flags: ManagerArgs } {
  const flags: Record<string, string> = {};
  let command = '';
  for (const a of args) {
    const m = /^--([^=]+)(?:=(.*))?$/.exec(a);
    if (m) flags[m[1] ?? ''] = m[2] ?? 'true';
    else if (!command) command = a;
  }
  return { command, flags };
}

/** Starts backup-manager processes for the containers of its image. */
export class BackupManagerRuntime implements ContainerRuntime {
  /** The latest process of each `namespace/pod`, for tests and diagnostics. */
  readonly processes = new Map<string, ScriptProcess>();

  constructor(
    private readonly ctx: BackupContext,
    private readonly tasks: LogTasks,
  ) {}

  start(pod: KubeObject, hooks: ProcessHooks): SimProcess | undefined {
    const container = ((pod.spec?.containers ?? []) as { name?: string; image?: string; args?: string[]; command?: string[] }[]).find((c) => c.name === hooks.container);
    if (!container || !isBackupManagerImage(container.image ?? '')) return undefined;
    const { command, flags } = parseManagerArgs([...(container.command ?? []).filter((c) => !c.startsWith('/')), ...(container.args ?? [])]);
    const process = new ScriptProcess(this.ctx.clock, hooks, this.script(pod, hooks.container, command, flags));
    this.processes.set(`${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`, process);
    return process;
  }

  private *script(pod: KubeObject, container: string, command: string, flags: ManagerArgs): Script {
    const client = new CrClient(this.ctx.store, CrClient.userOf(pod));
    if (command === 'backup' && (flags.mode ?? 'snapshot') === 'snapshot') return yield* snapshotBackup(this.ctx, pod, client, flags, container);
    if (command === 'backup' && flags.mode === 'log') return yield* logBackup(this.ctx, this.tasks, pod, client, flags, container);
    if (command === 'restore' && (flags.mode === 'snapshot' || flags.mode === 'pitr' || flags.mode === undefined)) return yield* restoreRun(this.ctx, pod, client, flags, container);
    if (command === 'clean') return yield* cleanBackup(this.ctx, pod, client, flags, container);
    if (command === 'compact') return yield* compactRun(this.ctx, pod, client, flags);
    throw new Error(`backup-manager ${command} ${flags.mode ? `--mode=${flags.mode} ` : ''}is not simulated`);
  }
}
