import { describe, expect, it } from '@jest/globals';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { buildFunctions } from '../../scripts/build.js';
import { serverlessFunctions } from '../../scripts/esbuild-options.js';
import { prebuiltCli } from '../support/prebuilt-cli.js';

const ROOT = join(import.meta.dirname, '..', '..');

/** How a test starts the command: as users do, `bin/tidb-reconciler.js` (launcher, tsx), or prebuilt. */
type Entry = { command: string; args: string[] };
const BIN: Entry = { command: process.execPath, args: [join(ROOT, 'bin', 'tidb-reconciler.js')] };

/**
 * Runs the command (through `entry`: the launcher unless given) in `cwd` (a fresh directory unless
 * given) and resolves when it exits (killed after 150 s). Asynchronous, so that the tests below run
 * side by side: each mostly waits, on the CLI's start-up or on the local stack's wall clock. The tests
 * of messages and of `start` against a server use the prebuilt command (test/support/prebuilt-cli.ts);
 * `--version`, `start --once` in its own world and the admin/start pair go through the launcher.
 */
function cli(args: string[], opts: { cwd?: string; entry?: Entry } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const entry = opts.entry ?? BIN;
  return new Promise((resolve, reject) => {
    const child = spawn(entry.command, [...entry.args, ...args], { cwd: opts.cwd ?? mkdtempSync(join(tmpdir(), 'cli-')), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 150_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('the tidb-reconciler command', () => {
  it.concurrent.each([
    { name: 'top level', args: ['--help'], want: 'Commands:' },
    { name: 'start', args: ['start', '--help'], want: 'Usage: tidb-reconciler start' },
    { name: 'sim serve', args: ['sim', 'serve', '--help'], want: 'Usage: tidb-reconciler sim serve' },
    { name: 'simulate', args: ['simulate', '--help'], want: 'Usage: tidb-reconciler simulate' },
    { name: 'admin', args: ['admin', '--help'], want: 'Usage: tidb-reconciler admin' },
    { name: 'plan', args: ['plan', '--help'], want: 'Usage: tidb-reconciler plan' },
  ])('every subcommand has --help: $name', async ({ args, want }) => {
    const r = await cli(args, { entry: prebuiltCli() });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(want);
  });

  it.concurrent.each([
    { name: 'unknown command', args: ['frobnicate'], want: 'unknown command "frobnicate"' },
    { name: 'a mistyped command suggests the nearest', args: ['simualte', 'x.yaml'], want: 'unknown command "simualte" (did you mean "simulate"?)' },
    { name: 'bad port', args: ['sim', 'serve', '--port', 'http'], want: '--port: "http" is not a port number' },
    { name: 'bad duration', args: ['sim', 'serve', '--pod-startup', '5 minutes'], want: '--pod-startup: invalid duration "5 minutes"' },
    { name: 'unknown option', args: ['start', '--onse'], want: "Unknown option '--onse' (did you mean --once?)" },
    { name: 'a mistyped admin action suggests the nearest', args: ['admin', 'histroy', 'demo/basic'], want: 'unknown action "histroy" (did you mean "history"?' },
    { name: 'admin with a bad ref', args: ['admin', 'status', 'basic'], want: '"basic" is not <namespace>/<name> (or give -n <namespace> basic), nor <eks-cluster>/<namespace>/<name> [cluster]' },
  ])('bad input exits 2 naming the problem: $name', async ({ args, want }) => {
    const r = await cli(args, { entry: prebuiltCli() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(want);
  });

  it.concurrent('--version prints the package version and exits 0', async () => {
    const r = await cli(['--version']);
    const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(`tidb-reconciler ${version}`);
  });

  it.concurrent('start --once brings the example TidbCluster to Ready through the real handlers and exits 0', async () => {
    const r = await cli(['start', '--once', '--timeout', '2m']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('applied TidbCluster demo/basic');
    expect(r.stdout).toMatch(/pd\s+3\s+3\s+Normal/);
    expect(r.stdout).toContain('Ready: True');
  }, 180_000);

  it.concurrent('start --once exits 1 with the reason when the cluster cannot become Ready in time', async () => {
    const r = await cli(['start', '--once', '--timeout', '1s']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/not Ready within 1s: /);
  }, 180_000);

  it.concurrent('start --kubeconfig --apply FILE runs the same stack against another API server (here a running sim serve) and applies that file', async () => {
    await withSimServe(async (dir, kubeconfig) => {
      const example = join(ROOT, 'test', 'fixtures', 'pd-tidbcluster.yaml');
      const r = await startAgainst(dir, ['--once', '--timeout', '2m', '--kubeconfig', kubeconfig, '--apply', example]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('applied TidbCluster demo/basic');
      expect(r.stdout).toContain('Ready: True');
    });
  }, 180_000);

  it.concurrent('start --kubeconfig without --apply applies no manifest there, and reconciles and shows every TidbCluster it has', async () => {
    await withSimServe(async (dir, kubeconfig) => {
      // Prepare: two clusters a user created in two namespaces.
      const kc = new KubeConfig();
      kc.loadFromFile(kubeconfig);
      const example = parse(readFileSync(join(ROOT, 'test', 'fixtures', 'pd-tidbcluster.yaml'), 'utf8')) as { metadata: Record<string, unknown>; spec: { pd: Record<string, unknown> } };
      for (const [namespace, name] of [['team-a', 'alpha'], ['team-b', 'beta']] as const) {
        await kc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: namespace } } });
        const body = { ...example, metadata: { name, namespace }, spec: { ...example.spec, pd: { ...example.spec.pd, replicas: 1 } } };
        await kc.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({ group: 'pingcap.com', version: 'v1alpha1', namespace, plural: 'tidbclusters', body });
      }

      // Act
      const r = await startAgainst(dir, ['--once', '--timeout', '2m', '--kubeconfig', kubeconfig]);

      // Assess
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('applying nothing');
      expect(r.stdout).not.toContain('applied TidbCluster');
      expect(r.stdout).toContain('2 TidbClusters');
      expect(r.stdout).toMatch(/team-a\/alpha\n\s+component.*\n\s+pd\s+1\s+1\s+Normal\n\s+Ready: True/);
      expect(r.stdout).toMatch(/team-b\/beta\n\s+component.*\n\s+pd\s+1\s+1\s+Normal\n\s+Ready: True/);
      const all = (await kc.makeApiClient(CustomObjectsApi).listClusterCustomObject({ group: 'pingcap.com', version: 'v1alpha1', plural: 'tidbclusters' })) as { items: { metadata: { namespace: string; name: string } }[] };
      expect(all.items.map((tc) => `${tc.metadata.namespace}/${tc.metadata.name}`).sort()).toEqual(['team-a/alpha', 'team-b/beta']);
    });
  }, 180_000);

  it.concurrent('start --kubeconfig --dry-run plans every TidbCluster there and writes nothing', async () => {
    await withSimServe(async (dir, kubeconfig) => {
      // Prepare: a cluster a user created, not reconciled yet.
      const kc = new KubeConfig();
      kc.loadFromFile(kubeconfig);
      const example = parse(readFileSync(join(ROOT, 'test', 'fixtures', 'pd-tidbcluster.yaml'), 'utf8')) as { metadata: Record<string, unknown> };
      await kc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: 'team-a' } } });
      await kc.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({ group: 'pingcap.com', version: 'v1alpha1', namespace: 'team-a', plural: 'tidbclusters', body: { ...example, metadata: { name: 'alpha', namespace: 'team-a' } } });

      // Act
      const r = await startAgainst(dir, ['--kubeconfig', kubeconfig, '--dry-run']);

      // Assess: the first step's actions are listed, and none of them was carried out.
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('team-a/alpha');
      expect(r.stdout).toMatch(/actions, in order:\n\s+1\. create /);
      const services = await kc.makeApiClient(CoreV1Api).listNamespacedService({ namespace: 'team-a' });
      expect(services.items).toEqual([]);
    });
  }, 180_000);

  it('kill <pid of npm start> (SIGTERM to npm) leaves no process and no listening port of it behind', async () => {
    // Prepare: npm start, up to the point where its servers listen and the example is applied.
    const npm = spawn('npm', ['start'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    npm.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    const npmExited = new Promise<void>((resolve) => npm.once('exit', () => resolve()));
    let tree: number[] = [];
    try {
      for (let i = 0; i < 600 && !stdout.includes('applied TidbCluster'); i++) await sleep(100);
      expect(stdout).toContain('applied TidbCluster demo/basic');
      tree = descendantsOf(npm.pid ?? -1);
      const ports = listeningPorts(tree);
      expect(tree.length).toBeGreaterThanOrEqual(2); // npm and the node process running the stack, at least
      expect(ports.size).toBeGreaterThanOrEqual(3); // API server, SQS, DynamoDB

      // Act
      npm.kill('SIGTERM');
      await npmExited;
      for (let i = 0; i < 300 && tree.some(isAlive); i++) await sleep(100);

      // Assess
      expect(tree.filter(isAlive)).toEqual([]);
      expect([...ports].filter((port) => allListeningPorts().has(port))).toEqual([]);
    } finally {
      // Whatever the run left behind (orphans are no longer below npm), so a failure leaks nothing.
      for (const pid of [...tree, ...descendantsOf(npm.pid ?? -1)].filter(isAlive).reverse()) killQuietly(pid);
    }
  }, 120_000);

  it.concurrent('admin history demo/basic, run beside a running start, prints the step history from its local admin endpoint; stopping start removes the endpoint file', async () => {
    // Prepare: the local stack in a directory of its own, until its first steps are recorded.
    const dir = mkdtempSync(join(tmpdir(), 'cli-admin-'));
    const start = spawn(process.execPath, [join(ROOT, 'bin', 'tidb-reconciler.js'), 'start'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    start.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    const exited = new Promise<number | null>((resolve) => start.once('exit', resolve));
    const admin = (args: string[]) => cli(['admin', ...args], { cwd: dir });
    const endpointFile = join(dir, '.tidb-reconciler', 'local-stack.json');
    try {
      for (let i = 0; i < 600 && !(existsSync(endpointFile) && stdout.includes('applied TidbCluster')); i++) await sleep(100);
      let history = await admin(['history', 'demo/basic']);
      for (let i = 0; i < 60 && !/\n\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ /.test(history.stdout); i++) {
        await sleep(500);
        history = await admin(['history', 'demo/basic']);
      }

      // Act
      const status = await admin(['status', 'demo/basic']);
      const wide = await admin(['history', '-n', 'demo', 'basic', '-o', 'wide']);

      // Assess: one line a step by default; -o wide has every action
      expect(history.code).toBe(0);
      expect(history.stdout).toMatch(/^Step history of demo\/basic \(newest first, \d+ records?\)\nTIME\s+TRIGGER\s+N\s+ACTIONS\s+OUTCOME\n/);
      expect(wide.stdout).toMatch(/\nTIME\s+TRIGGER\s+RULES\s+ACTIONS\s+OUTCOME\s+DURATION\n/);
      expect(wide.stdout).toContain('create StatefulSet demo/basic-pd: ok');
      expect(status.code).toBe(0);
      expect(status.stdout).toContain('TidbCluster demo/basic   (key local/demo/basic)');
    } finally {
      start.kill('SIGTERM');
      await exited;
    }
    expect(existsSync(endpointFile)).toBe(false);
  }, 120_000);

  it('npm run build bundles every function of serverless.yml with its handler export', async () => {
    // Prepare
    const out = mkdtempSync(join(tmpdir(), 'build-'));
    // Act
    const built = await buildFunctions(out);
    // Assess
    expect(built.map((f) => f.name)).toEqual(serverlessFunctions().map((f) => f.name));
    for (const fn of built) {
      expect(existsSync(fn.file)).toBe(true);
      expect(fn.bytes).toBeGreaterThan(100_000);
    }
  }, 180_000);
});

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `fn` with a `sim serve` of its own (loopback), stopped afterwards. */
async function withSimServe(fn: (dir: string, kubeconfig: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'cli-'));
  const kubeconfig = join(dir, 'kubeconfig');
  const server = spawn(prebuiltCli().command, [...prebuiltCli().args, 'sim', 'serve', '--kubeconfig', kubeconfig], { stdio: 'ignore' });
  const exited = new Promise((resolve) => server.once('exit', resolve));
  try {
    for (let i = 0; i < 300 && !existsSync(kubeconfig); i++) await sleep(100);
    await fn(dir, kubeconfig);
  } finally {
    server.kill('SIGINT');
    await exited;
  }
}

function startAgainst(dir: string, args: string[]): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve) => {
    const start: ChildProcess = spawn(prebuiltCli().command, [...prebuiltCli().args, 'start', ...args], { cwd: dir });
    let stdout = '';
    start.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    start.on('exit', (code) => resolve({ code, stdout }));
  });
}

/** `pid` and every process below it, parents first (from /proc). */
function descendantsOf(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(Number(entry), ppid);
    } catch {
      // The process ended while listing.
    }
  }
  const found = [pid];
  for (let i = 0; i < found.length; i++) for (const [child, parent] of parents) if (parent === found[i]) found.push(child);
  return found.filter(isAlive);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
  } catch {
    return false;
  }
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** Listening TCP sockets (IPv4 and IPv6) as inode → port, from /proc/net. */
function listeningSockets(): Map<string, number> {
  const sockets = new Map<string, number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const lines = existsSync(table) ? readFileSync(table, 'utf8').split('\n').slice(1) : [];
    for (const line of lines) {
      const f = line.trim().split(/\s+/);
      if (f[3] === '0A' && f[1] && f[9]) sockets.set(f[9], parseInt(f[1].split(':')[1] ?? '0', 16));
    }
  }
  return sockets;
}

const allListeningPorts = (): Set<number> => new Set(listeningSockets().values());

/** The ports `pids` listen on (their socket file descriptors matched against /proc/net). */
function listeningPorts(pids: readonly number[]): Set<number> {
  const sockets = listeningSockets();
  const ports = new Set<number>();
  for (const pid of pids) {
    let fds: string[] = [];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      const inode = /^socket:\[(\d+)\]$/.exec(safeReadlink(`/proc/${pid}/fd/${fd}`))?.[1];
      const port = inode === undefined ? undefined : sockets.get(inode);
      if (port !== undefined) ports.add(port);
    }
  }
  return ports;
}

function safeReadlink(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return '';
  }
}
