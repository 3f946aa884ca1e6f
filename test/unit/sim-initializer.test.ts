/**
 * The simulated TiDB initializer in the Job the TidbInitializer controller builds (lib/sim/initializer):
 * its pod waits for TiDB's Service, logs in as root and runs its SQL against a TiDB that answers with
 * the cluster's accounts (lib/sim/tidb/mysql-port.ts); a wrong password, an unreachable TiDB and bad
 * SQL end it with exit 1 and the Job Failed, as the real script does — and this project's script
 * re-runs where v1's is refused.
 */
import { describe, expect, it } from '@jest/globals';
import type { TidbCluster } from '../../lib/model/kube.js';
import { VirtualClock } from '../../lib/platform/clock.js';
import { buildInitConfigMap, buildInitJob } from '../../lib/reconcile/tidb-initializer/job.js';
import type { TidbInitializer, TidbInitializerSpec } from '../../lib/reconcile/tidb-initializer/types.js';
import { SimControllers } from '../../lib/sim/controllers/index.js';
import { InitializerRuntime } from '../../lib/sim/initializer/runtime.js';
import type { KubeObject } from '../../lib/sim/object.js';
import { POD_PRINTER } from '../../lib/sim/printers/pod.js';
import { ProxyRegistry } from '../../lib/sim/proxy.js';
import { ObjectStore } from '../../lib/sim/store.js';
import { answerMysql } from '../../lib/sim/tidb/mysql-port.js';
import { SqlAccounts } from '../../lib/sim/tidb/sql.js';
import { T0, tidbCluster } from '../support/fixtures.js';

const NS = 'demo';
const TC = tidbCluster() as TidbCluster;
const JOB = 'basic-tidb-initializer';

/** A world with the kubelet and Job controller running initializer pods, and (with `tidb`) a TiDB behind `basic-tidb:4000`. */
function world(opts: { tidb?: boolean; rootPassword?: string } = {}) {
  const clock = new VirtualClock(T0);
  const store = new ObjectStore(clock);
  store.create('Namespace', { metadata: { name: NS } });
  const proxy = new ProxyRegistry(store, () => 0);
  const accounts = new SqlAccounts();
  if (opts.rootPassword !== undefined) accounts.execute(`set password for 'root'@'%' = '${opts.rootPassword}';`);
  const runtime = new InitializerRuntime();
  runtime.attach({ store, clock, proxy });
  const controllers = new SimControllers(store, { podStartupMs: 1000, nodes: 1, runtimes: [runtime] });
  controllers.start();
  const tidb = (): void => {
    store.create('Service', { metadata: { name: 'basic-tidb', namespace: NS }, spec: { selector: { app: 'tidb' }, ports: [{ name: 'mysql-client', port: 4000, targetPort: 4000 }] } });
    store.create('Pod', { metadata: { name: 'basic-tidb-0', namespace: NS, labels: { app: 'tidb' } }, spec: { containers: [{ name: 'tidb', image: 'pingcap/tidb:v8.5.0' }] } });
    proxy.register(NS, 'basic-tidb-0', 4000, (req) => answerMysql(req, accounts, () => undefined));
  };
  if (opts.tidb !== false) tidb();
  store.create('Secret', { metadata: { name: 'tidb-secret', namespace: NS }, stringData: { root: 's3cr3t', developer: 'dev-pw' } });
  return { clock, store, accounts, runtime, tidb };
}

/** Creates the initializer's ConfigMap and Job as the controller builds them (`v1Script` replaces the start script with v1's login). */
function start(w: ReturnType<typeof world>, spec: Partial<TidbInitializerSpec> = {}, opts: { v1Script?: boolean; noWait?: boolean } = {}): void {
  const ti: TidbInitializer = { apiVersion: 'pingcap.com/v1alpha1', kind: 'TidbInitializer', metadata: { name: 'ti', namespace: NS, uid: 'uid-ti' }, spec: { image: 'tnir/mysqlclient', cluster: { name: 'basic' }, passwordSecret: 'tidb-secret', initSql: 'create database hello;', ...spec } };
  const cm = buildInitConfigMap(ti, TC) as unknown as KubeObject;
  const data = cm['data'] as Record<string, string>;
  if (opts.v1Script) data['start-script'] = v1Login(data['start-script'] ?? '');
  w.store.create('ConfigMap', cm);
  const job = buildInitJob(ti, TC) as unknown as KubeObject;
  if (opts.noWait) delete (job.spec.template.spec as Record<string, unknown>)['initContainers'];
  w.store.create('Job', job);
}

/** v1's login (`tidbInitStartScriptTpl`): root with no password, 10 attempts — and v1's `create user`. */
function v1Login(script: string): string {
  return script
    .replace(/passwords = \[''\]\n(?:.*\n)*?conn = None\nfor i in range\(0, 10\):\n(?:.*\n)*?    sys\.exit\(1\)\n/, [
      'retry_count = 0',
      'for i in range(0, 10):',
      '    try:',
      "        conn = MySQLdb.connect(host=host, port=port, user='root', connect_timeout=5, charset='utf8mb4')",
      '    except MySQLdb.OperationalError as e:',
      '        print(e)',
      '        retry_count += 1',
      '        time.sleep(1)',
      '        continue',
      '    break',
      'if retry_count == 10:',
      '    sys.exit(1)',
      '',
    ].join('\n'))
    .replace(/create user if not exists %s@%s identified by %s;", \(user, permit_host, password,\)\)\n.*alter user.*\n/, 'create user %s@%s identified by %s;", (user, permit_host, password,))\n');
}

const jobCondition = (w: ReturnType<typeof world>): string | undefined => (w.store.get('Job', NS, JOB)?.status?.conditions as { type: string; status: string }[] | undefined)?.find((c) => c.status === 'True' && (c.type === 'Complete' || c.type === 'Failed'))?.type;
const logOf = (w: ReturnType<typeof world>): string[] => [...w.runtime.processes.values()][0]?.log ?? [];
const waitLogOf = (w: ReturnType<typeof world>): string[] => [...w.runtime.waits.values()][0]?.log ?? [];
const podOf = (w: ReturnType<typeof world>): KubeObject | undefined => w.store.list('Pod', NS).find((p) => p.metadata.name?.startsWith(JOB));
const exitCode = (w: ReturnType<typeof world>): unknown => {
  const pod = w.store.list('Pod', NS).find((p) => p.metadata.name?.startsWith(JOB));
  return (pod?.status?.containerStatuses as { state?: { terminated?: { exitCode?: number } } }[] | undefined)?.[0]?.state?.terminated?.exitCode;
};

describe('the simulated initializer', () => {
  it("sets root's password from the Secret, creates the other users and runs the SQL: the Job completes", async () => {
    const w = world();
    start(w);
    await w.clock.advance(60_000);
    expect(jobCondition(w)).toBe('Complete');
    expect(exitCode(w)).toBe(0);
    expect(w.accounts.login('root', '', '10.0.0.1')?.code).toBe(1045);
    expect(w.accounts.login('root', 's3cr3t', '10.0.0.1')).toBeUndefined();
    expect(w.accounts.passwordOf('developer')).toBe('dev-pw');
    expect(w.accounts.databases()).toEqual(['hello']);
  });

  it("waits for TiDB's Service in the `wait` init container as v1's loop does (forever: the pod Pending at Init:0/1, the Job active), then initialises once it answers", async () => {
    const w = world({ tidb: false });
    start(w);
    await w.clock.advance(10 * 60_000);
    expect(jobCondition(w)).toBeUndefined();
    expect(waitLogOf(w).slice(0, 2)).toEqual(["nc: bad address 'basic-tidb'", 'info: failed to connect to basic-tidb:4000, sleep 1 second then retry']);
    expect(podOf(w)?.status?.phase).toBe('Pending');
    expect(POD_PRINTER.cells(podOf(w) as KubeObject, w.clock.nowMs())[2]).toBe('Init:0/1');
    expect(w.runtime.processes.size).toBe(0);
    w.tidb();
    await w.clock.advance(60_000);
    expect(jobCondition(w)).toBe('Complete');
    expect(waitLogOf(w)).toContain('info: successfully connected to basic-tidb:4000, able to initialize TiDB now');
    expect((podOf(w)?.status?.initContainerStatuses as { state: { terminated?: { exitCode: number } } }[] | undefined)?.[0]?.state.terminated?.exitCode).toBe(0);
  });

  it('a root password that is neither empty nor the Secret\'s: "Access denied" 10 rounds, exit 1, the Job fails', async () => {
    const w = world({ rootPassword: 'someone-elses' });
    start(w);
    await w.clock.advance(60_000);
    expect(jobCondition(w)).toBe('Failed');
    expect(exitCode(w)).toBe(1);
    const denied = logOf(w).filter((l) => l.includes('Access denied'));
    expect(denied).toHaveLength(20);
    expect(denied.slice(0, 2)).toEqual([expect.stringMatching(/^\(1045, "Access denied for user 'root'@'[\d.]+' \(using password: NO\)"\)$/), expect.stringMatching(/\(using password: YES\)"\)$/)]);
    expect(w.accounts.databases()).toEqual([]);
  });

  it("unreachable TiDB (no Service) once the script runs: MySQLdb's 2005 ten times, exit 1, the Job fails", async () => {
    const w = world({ tidb: false });
    start(w, {}, { noWait: true });
    await w.clock.advance(60_000);
    expect(jobCondition(w)).toBe('Failed');
    expect(logOf(w).filter((l) => l === `(2005, "Unknown MySQL server host 'basic-tidb' (-2)")`)).toHaveLength(20);
  });

  it('bad SQL: the traceback with TiDB\'s parser error, exit 1, the Job fails — the password already set', async () => {
    const w = world();
    start(w, { initSql: 'creat database hello;' });
    await w.clock.advance(60_000);
    expect(jobCondition(w)).toBe('Failed');
    expect(exitCode(w)).toBe(1);
    expect(logOf(w).slice(-4)).toEqual([
      'Traceback (most recent call last):',
      expect.stringMatching(/^ {2}File "\/usr\/local\/bin\/start_script\.py", line \d+, in <module>$/),
      '    conn.cursor().execute(line)',
      `MySQLdb._exceptions.ProgrammingError: (1064, 'You have an error in your SQL syntax; check the manual that corresponds to your TiDB version for the right syntax to use line 1 column 5 near "creat database hello;" ')`,
    ]);
    expect(w.accounts.passwordOf('root')).toBe('s3cr3t');
  });

  it.each([
    { name: "this project's script logs in with the Secret's password and completes", v1Script: false, result: 'Complete' },
    { name: "v1's script tries only the empty password and fails (#3353)", v1Script: true, result: 'Failed' },
  ])('re-run on a cluster already initialised with the Secret: $name', async ({ v1Script, result }) => {
    const w = world({ rootPassword: 's3cr3t' });
    w.accounts.execute("create user 'developer'@'%' identified by 'dev-pw';");
    start(w, { initSql: 'create database if not exists hello;' }, { v1Script });
    await w.clock.advance(60_000);
    expect(jobCondition(w)).toBe(result);
  });
});
