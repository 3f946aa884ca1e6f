/**
 * A running `tidb-reconciler sim serve` for kubectl tests: started as a user starts it (its own
 * process, the run's prebuilt command, a kubeconfig written to a temp dir), with a kubectl bound to
 * that kubeconfig; stopped with SIGINT, waiting for the process to exit so nothing outlives the tests.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { request as httpsRequest } from 'node:https';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { type Kubectl, kubectlFor } from './kubectl.js';
import { prebuiltCli } from './prebuilt-cli.js';


/** A started server: its URL and bearer token (empty when none), kubectl against it, and stop. */
export type SimServe = {
  /** The kubeconfig it wrote, and the temp dir that holds it (a test may keep its own files there). */
  readonly kubeconfigPath: string;
  readonly dir: string;
  readonly baseUrl: string;
  readonly token: string;
  /** The VPC's CONNECT proxy it offers (`start --vpc-proxy`), as it prints it. */
  readonly vpcProxyUrl: string;
  readonly kubectl: Kubectl;
  /** One https request to the server as the kubeconfig's user (its token, trusting its CA). */
  request(method: string, path: string, headers?: Record<string, string>, body?: Buffer): Promise<{ status: number; body: string }>;
  /** Runs kubectl and resolves with stdout; rejects with stderr when kubectl fails. */
  ok(args: string[], input?: string): Promise<string>;
  stop(): Promise<void>;
};

/** Starts `sim serve` with the given pod startup time and waits until its kubeconfig is written. */
export async function startSimServe(podStartup = '200ms'): Promise<SimServe> {
  const dir = mkdtempSync(join(tmpdir(), 'sim-serve-'));
  const kubeconfigPath = join(dir, 'kubeconfig');
  const cli = prebuiltCli();
  const server: ChildProcess = spawn(cli.command, [...cli.args, 'sim', 'serve', '--kubeconfig', kubeconfigPath, '--pod-startup', podStartup], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`sim serve did not start: ${out}`)), 60000);
    server.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('kubeconfig written')) {
        clearTimeout(timer);
        resolve();
      }
    });
    server.stderr?.on('data', (d: Buffer) => (out += d.toString()));
    server.on('exit', (code) => reject(new Error(`sim serve exited with ${code}: ${out}`)));
  });
  const vpcProxyUrl = /--vpc-proxy (\S+)/.exec(out)?.[1] ?? '';
  const kubeconfig = parse(readFileSync(kubeconfigPath, 'utf8')) as { clusters: { cluster: { server: string; 'certificate-authority-data'?: string } }[]; users: { user: { token?: string } }[] };
  const ca = Buffer.from(kubeconfig.clusters[0]?.cluster['certificate-authority-data'] ?? '', 'base64');
  const kubectl = kubectlFor(kubeconfig as unknown as Record<string, unknown>);
  return {
    kubeconfigPath,
    dir,
    baseUrl: kubeconfig.clusters[0]?.cluster.server ?? '',
    token: kubeconfig.users[0]?.user.token ?? '',
    vpcProxyUrl,
    kubectl,
    request(method, path, headers = {}, body) {
      const url = new URL(path, kubeconfig.clusters[0]?.cluster.server);
      const token = kubeconfig.users[0]?.user.token;
      return new Promise((resolve, reject) => {
        const req = httpsRequest(url, { method, ca, headers: { ...headers, ...(token ? { Authorization: `Bearer ${token}` } : {}) }, timeout: 30_000 }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        });
        req.on('timeout', () => req.destroy(new Error(`${method} ${path} timed out`)));
        req.on('error', reject);
        req.end(body);
      });
    },
    async ok(args, input) {
      const r = await kubectl(args, { input, timeoutMs: 60000 });
      if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
      return r.stdout;
    },
    async stop() {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGINT');
      await exited;
    },
  };
}
