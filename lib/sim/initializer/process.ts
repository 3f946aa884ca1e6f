/**
 * The simulated TiDB initializer pod (TiDB Operator's Job `<cluster>-tidb-initializer`): the process
 * of the pod's `mysql-client` container, which the kubelet starts once the `wait` init container
 * (wait.ts) saw TiDB's Service answer; it does what `start_script.py` does, on the virtual clock:
 *   - root logs in: v1's script with the empty password only; this project's with the empty one and
 *     then the Secret's `root` — 10 rounds, 1 s apart, each error printed; then `sys.exit(1)`;
 *   - each password file: `root` ⇒ `set password for 'root'@'%'`; another user ⇒ `create user`
 *     (v1) or `create user if not exists` + `alter user` (this project's);
 *   - /data/init.sql line by line; the `permitHost` rewrite; `flush privileges`.
 * A failed statement ends it as Python does: the traceback, exit 1 (the Job, `backoffLimit: 0`, then
 * fails). Its output is kept in `log` (the last lines), as `kubectl logs` would show it.
 */
import type { Clock, TimerHandle } from '../../platform/clock.js';
import type { KubeObject } from '../object.js';
import type { ProxyRegistry } from '../proxy.js';
import type { ProcessHooks, SimProcess } from '../runtime.js';
import type { ObjectStore } from '../store.js';
import { MysqlClientError, MysqlLink } from './client.js';
import { configMapFile, lineOf, readStartScript, secretFiles, type StartScript } from './files.js';

/** What the process reaches: the store (mounted files, its pod's IP), the clock, the service proxy. */
export type InitializerDeps = { readonly store: ObjectStore; readonly clock: Clock; readonly proxy: ProxyRegistry };

/** How many output lines are kept. */
export const LOG_LINES = 200;

class Stopped extends Error {}

/** One run of the initializer pod. */
export class InitializerProcess implements SimProcess {
  /** The container's output (stdout and stderr), the last `LOG_LINES` lines. */
  readonly log: string[] = [];
  private exit: { reason: string; exitCode: number } | undefined;
  private timer: TimerHandle | undefined;
  private wake: (() => void) | undefined;
  private stopped = false;

  constructor(
    private readonly deps: InitializerDeps,
    private readonly pod: KubeObject,
    private readonly hooks: ProcessHooks,
  ) {
    this.timer = deps.clock.setTimer(() => void this.main(), 0);
  }

  isReady(): boolean {
    return this.exit === undefined;
  }

  exitReason(): { reason: string; exitCode: number } | undefined {
    return this.exit;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) this.deps.clock.clearTimer(this.timer);
    this.wake?.();
  }

  private async main(): Promise<void> {
    let code: number;
    try {
      code = await this.run();
    } catch (err) {
      if (err instanceof Stopped) return;
      this.print(`Traceback (most recent call last):\n  ${err instanceof Error ? err.message : String(err)}`);
      code = 1;
    }
    if (this.stopped) return;
    this.exit = { reason: code === 0 ? 'Completed' : 'Error', exitCode: code };
    this.hooks.onChange();
  }

  private async run(): Promise<number> {
    const { store } = this.deps;
    const text = configMapFile(store, this.pod, 'start-script', 'start-script');
    if (text === undefined) {
      this.print("python: can't open file '/usr/local/bin/start_script.py': [Errno 2] No such file or directory");
      return 2;
    }
    const script = readStartScript(text);
    if (script === undefined) {
      this.print('the simulated mysql-client runs only TiDB Operator\'s initializer start_script.py');
      return 1;
    }
    const link = new MysqlLink(this.deps.proxy, this.pod.metadata.namespace ?? '', script.host, script.port, () => this.podIp());
    const passwords = script.setsPasswords ? (secretFiles(store, this.pod, 'password') ?? new Map<string, string>()) : new Map<string, string>();
    const session = await this.login(link, script, passwords);
    if (session === undefined) return 1;
    try {
      await this.initialise(link, script, session, passwords);
    } catch (err) {
      if (!(err instanceof Failed)) throw err;
      this.print(`Traceback (most recent call last):\n  File "/usr/local/bin/start_script.py", line ${err.line}, in <module>\n    ${err.source}\n${err.cause.pythonClass}: ${err.cause.message}`);
      return 1;
    }
    return 0;
  }

  /** The login rounds; the session, or undefined after 10 failed rounds (`sys.exit(1)`). */
  private async login(link: MysqlLink, script: StartScript, passwords: Map<string, string>): Promise<string | undefined> {
    const root = passwords.get('root')?.split('\n')[0] ?? '';
    const candidates = script.rerunnableLogin && root !== '' ? ['', root] : [''];
    for (let round = 0; round < 10; round++) {
      for (const password of candidates) {
        try {
          return await link.connect('root', password);
        } catch (err) {
          if (!(err instanceof MysqlClientError)) throw err;
          this.print(err.message);
        }
      }
      await this.sleep(1000);
    }
    return undefined;
  }

  private async initialise(link: MysqlLink, script: StartScript, session: string, passwords: Map<string, string>): Promise<void> {
    const run = async (statement: string, fragment: string): Promise<void> => {
      try {
        await link.execute(session, statement);
      } catch (err) {
        if (err instanceof MysqlClientError) {
          const line = lineOf(script, fragment);
          throw new Failed(err, line, script.lines[line - 1]?.trim() ?? fragment);
        }
        throw err;
      }
    };
    const quote = (s: string): string => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
    for (const [user, value] of passwords) {
      const password = value.split('\n')[0] ?? '';
      if (user === 'root') await run(`set password for 'root'@'%' = ${quote(password)};`, 'set password for');
      else if (script.idempotentUsers) {
        await run(`create user if not exists ${quote(user)}@${quote(script.permitHost)} identified by ${quote(password)};`, 'create user if not exists');
        await run(`alter user ${quote(user)}@${quote(script.permitHost)} identified by ${quote(password)};`, 'alter user');
      } else await run(`create user ${quote(user)}@${quote(script.permitHost)} identified by ${quote(password)};`, 'create user');
    }
    if (script.runsInitSql) {
      const sql = configMapFile(this.deps.store, this.pod, 'init-sql', 'init-sql');
      if (sql === undefined) throw new Error(`File "/usr/local/bin/start_script.py", line ${lineOf(script, "open('/data/init.sql'")}, in <module>\nFileNotFoundError: [Errno 2] No such file or directory: '/data/init.sql'`);
      for (const line of sql.match(/[^\n]*\n|[^\n]+$/g) ?? []) await run(line, 'conn.cursor().execute(line)');
    }
    // v1 compares with '%%' (a Go-template leftover), so the rewrite always runs; with '%' it changes nothing.
    if (script.permitHost !== '%%') await run(`update mysql.user set Host=${quote(script.permitHost)} where User='root';`, 'update mysql.user');
    await run('flush privileges;', 'flush privileges');
  }

  private podIp(): string {
    const pod = this.deps.store.get('Pod', this.pod.metadata.namespace ?? '', this.pod.metadata.name ?? '');
    return String(pod?.status?.podIP ?? this.pod.status?.podIP ?? '127.0.0.1');
  }

  private print(text: string): void {
    this.log.push(...text.split('\n'));
    if (this.log.length > LOG_LINES) this.log.splice(0, this.log.length - LOG_LINES);
  }

  private sleep(ms: number): Promise<void> {
    if (this.stopped) return Promise.reject(new Stopped());
    return new Promise((resolve, reject) => {
      this.wake = () => reject(new Stopped());
      this.timer = this.deps.clock.setTimer(() => {
        this.wake = undefined;
        if (this.stopped) reject(new Stopped());
        else resolve();
      }, ms);
    });
  }
}

/** A statement's failure, where the script raised it. */
class Failed extends Error {
  constructor(
    override readonly cause: MysqlClientError,
    readonly line: number,
    readonly source: string,
  ) {
    super(cause.message);
  }
}
