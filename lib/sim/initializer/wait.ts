/**
 * The simulated `wait` init container of TiDB Operator's initializer Job (v1's
 * `tidbInitStartScriptTpl`, lib/reconcile/tidb-initializer/scripts.ts): `sh init_start_script.sh`
 * reads `host=` and `port=` off the mounted script, then `nc -zv -w 3 $host $port` every second until
 * TiDB's Service answers — forever, printing nc's error and "info: failed to connect to …, sleep 1
 * second then retry" each round — and exits 0 with "info: successfully connected to …". The kubelet
 * starts the `mysql-client` container only then, so the pod shows `Init:0/1` while TiDB is not
 * reachable.
 */
import type { TimerHandle } from '../../platform/clock.js';
import type { KubeObject } from '../object.js';
import type { ProcessHooks, SimProcess } from '../runtime.js';
import { MysqlLink } from './client.js';
import { configMapFile } from './files.js';
import { LOG_LINES, type InitializerDeps } from './process.js';

type Mount = { name?: string; mountPath?: string; subPath?: string };
type InitContainer = { name?: string; command?: string[]; args?: string[]; volumeMounts?: Mount[] };

/** The host and port `init_start_script.sh` waits for, read off the script; undefined when it is not v1's wait loop. */
export function readWaitScript(text: string): { host: string; port: number } | undefined {
  const host = /^host=(\S+)$/m.exec(text)?.[1];
  const port = /^port=(\d+)$/m.exec(text)?.[1];
  if (host === undefined || port === undefined || !text.includes('nc -zv -w 3 $host $port')) return undefined;
  return { host, port: Number(port) };
}

/** The init container's script as mounted (`sh <path>`: the ConfigMap key the subPath mount projects), or undefined. */
export function mountedWaitScript(deps: InitializerDeps, pod: KubeObject, container: InitContainer): string | undefined {
  const argv = [...(container.command ?? []), ...(container.args ?? [])];
  if (argv[0] !== 'sh' || argv.length !== 2) return undefined;
  const mount = (container.volumeMounts ?? []).find((m) => m.mountPath === argv[1]);
  const volume = ((pod.spec?.volumes ?? []) as { name?: string; configMap?: { items?: { key?: string; path?: string }[] } }[]).find((v) => v.name === mount?.name);
  if (mount?.name === undefined || volume?.configMap === undefined) return undefined;
  const key = volume.configMap.items?.find((i) => i.path === mount.subPath)?.key ?? mount.subPath ?? '';
  return configMapFile(deps.store, pod, mount.name, key);
}

/** One run of the `wait` init container. */
export class WaitProcess implements SimProcess {
  /** The container's output, the last `LOG_LINES` lines. */
  readonly log: string[] = [];
  private exit: { reason: string; exitCode: number } | undefined;
  private timer: TimerHandle | undefined;
  private stopped = false;
  private readonly link: MysqlLink;

  constructor(
    private readonly deps: InitializerDeps,
    private readonly pod: KubeObject,
    private readonly target: { host: string; port: number },
    private readonly hooks: ProcessHooks,
  ) {
    this.link = new MysqlLink(deps.proxy, pod.metadata.namespace ?? '', target.host, target.port, () => this.podIp());
    this.timer = deps.clock.setTimer(() => void this.round(), 0);
  }

  isReady(): boolean {
    return false;
  }

  exitReason(): { reason: string; exitCode: number } | undefined {
    return this.exit;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) this.deps.clock.clearTimer(this.timer);
  }

  /** One `nc` round; the next a second later, or exit 0 once the port opened. */
  private async round(): Promise<void> {
    const { host, port } = this.target;
    const refused = await this.link.probe();
    if (this.stopped) return;
    if (refused === undefined) {
      this.print(`${host} (${port}) open`);
      this.print(`info: successfully connected to ${host}:${port}, able to initialize TiDB now`);
      this.exit = { reason: 'Completed', exitCode: 0 };
      this.hooks.onChange();
      return;
    }
    this.print(refused);
    this.print(`info: failed to connect to ${host}:${port}, sleep 1 second then retry`);
    this.timer = this.deps.clock.setTimer(() => void this.round(), 1000);
  }

  private podIp(): string {
    const pod = this.deps.store.get('Pod', this.pod.metadata.namespace ?? '', this.pod.metadata.name ?? '');
    return String(pod?.status?.podIP ?? '127.0.0.1');
  }

  private print(line: string): void {
    this.log.push(line);
    if (this.log.length > LOG_LINES) this.log.splice(0, this.log.length - LOG_LINES);
  }
}
