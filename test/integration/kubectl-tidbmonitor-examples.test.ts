/**
 * TiDB Operator's TidbMonitor examples (release-1.6 `examples/basic/tidb-monitor.yaml` and the
 * `examples/monitor-*` directories, copied unchanged into test/fixtures/tidb-operator-examples/) as a
 * user runs them: every document of each applied with `kubectl apply -f` against `sim serve`, in the
 * order its README gives (the TidbCluster first, the monitor once the cluster runs, then what follows
 * it), with the reconciler running against it (`tidb-reconciler start`). Each monitor's StatefulSets
 * reach Ready (its pods run the initializer, Prometheus, the reloaders and Grafana), its Services and
 * ConfigMaps exist, and `kubectl get tm` prints v1's columns. One `sim serve` per example that names
 * namespaces another also names (ns1/ns2). The TLS example's clusters get real certificates, made
 * as TiDB Operator's TLS guide has a user make them, and the reconciler runs in the cluster's VPC
 * (`start --vpc-proxy`, docs/adr/0032): it reaches them over mutual TLS and they become Ready.
 */
import { describe, expect, it } from '@jest/globals';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClientCertificate } from '../../lib/components/network.js';
import { VpcProxyNetwork, parseVpcProxyUrl } from '../../lib/local/vpc-proxy-network.js';
import { clusterTlsSecrets, makeClusterPki } from '../support/cluster-pki.js';
import { type SimServe, startSimServe } from '../support/sim-serve.js';
import { prebuiltCli } from '../support/prebuilt-cli.js';

const ROOT = join(import.meta.dirname, '..', '..');
const EXAMPLES = join(ROOT, 'test', 'fixtures', 'tidb-operator-examples');

/** A running `tidb-reconciler start` against one server: its recent output (for a failure message) and stop. */
type Reconciler = { output: () => string; stop: () => Promise<void> };

/**
 * Starts `tidb-reconciler start` against the server (until `stop`), in the cluster's VPC when asked;
 * its output is kept for a failure message.
 */
function startReconciler(s: SimServe, inVpc: boolean): Reconciler {
  let out = '';
  const vpc = inVpc ? ['--vpc-proxy', s.vpcProxyUrl] : [];
  const child: ChildProcess = spawn(prebuiltCli().command, [...prebuiltCli().args, 'start', '--kubeconfig', s.kubeconfigPath, ...vpc], { cwd: mkdtempSync(join(tmpdir(), 'start-')) });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.stdout?.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-4000)));
  child.stderr?.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-4000)));
  return {
    output: () => out,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
      await exited;
    },
  };
}

async function eventually<T>(read: () => Promise<T>, want: (v: T) => boolean, ms: number, why: () => string): Promise<T> {
  const end = Date.now() + ms;
  let last = await read();
  while (!want(last)) {
    if (Date.now() > end) throw new Error(`not reached; last value: ${JSON.stringify(last)}\n${why()}`);
    await new Promise((r) => setTimeout(r, 1000));
    last = await read();
  }
  return last;
}

/** `ready/replicas` of every StatefulSet in `ns` (`kubectl get sts`). */
async function statefulSets(s: SimServe, ns: string): Promise<Record<string, string>> {
  const out = await s.ok(['get', 'sts', '-n', ns, '-o', 'jsonpath={range .items[*]}{.metadata.name}={.status.readyReplicas}/{.spec.replicas}{"\\n"}{end}']);
  return Object.fromEntries(out.trim().split('\n').filter(Boolean).map((l) => l.split('=') as [string, string]));
}

/** The certificates of the TLS example's clusters (TidbCluster `ns` in namespace `ns`), made as its README has a user make them. */
const TLS_PKI = { ns1: makeClusterPki('ns1', 'ns1'), ns2: makeClusterPki('ns2', 'ns2') };

/** The Secrets holding them. */
function tlsSecrets(ns: 'ns1' | 'ns2'): string {
  return clusterTlsSecrets(ns, ns, TLS_PKI[ns]);
}

/**
 * One PD members read at the pod IP of `<ns>-pd-0` through the VPC proxy, presenting `client`:
 * `HTTP <status>`, or the error's name and message.
 */
async function readPdThroughVpc(s: SimServe, ns: 'ns1' | 'ns2', client: ClientCertificate): Promise<string> {
  const ip = (await s.ok(['get', 'pod', `${ns}-pd-0`, '-n', ns, '-o', 'jsonpath={.status.podIP}'])).trim();
  const network = new VpcProxyNetwork(parseVpcProxyUrl(s.vpcProxyUrl));
  const target = { ip, port: 2379, scheme: 'https' as const, serverName: `${ns}-pd-0.${ns}-pd-peer.${ns}.svc` };
  return network.exchange(target, { method: 'GET', path: '/pd/api/v1/members' }, client, 10_000, 'PD members').then(
    (answer) => `HTTP ${answer.status}`,
    (err: unknown) => `${(err as Error).name}: ${(err as Error).message}`,
  );
}

type Example = {
  readonly name: string;
  readonly namespaces: readonly string[];
  /** Documents a user creates first (the TLS certificates), applied from stdin. */
  readonly before?: string;
  /** `[namespace, file]`: the TidbClusters, in the README's order. */
  readonly clusters: readonly (readonly [string, string])[];
  /** `[namespace, file]`: the monitor and what the README applies after it. */
  readonly after: readonly (readonly [string, string])[];
  /** The namespace the monitor runs in and the StatefulSets that must become ready there. */
  readonly monitorNs: string;
  readonly monitorSets: readonly string[];
  readonly services: readonly string[];
  /**
   * Whether the reconciler runs in the cluster's VPC (`start --vpc-proxy`): a TLS cluster needs it,
   * as on EKS — from outside, the API server's proxy presents no client certificate (docs/adr/0018).
   */
  readonly inVpc: boolean;
};

const EXAMPLES_RUN: readonly Example[] = [
  {
    name: 'basic, monitor-shards and monitor-prom-remotewrite (with its Thanos receiver and query)',
    namespaces: ['tidb-cluster', 'shards', 'remotewrite'],
    clusters: [['tidb-cluster', 'basic/tidb-cluster.yaml'], ['shards', 'monitor-shards/tidb-cluster.yaml'], ['remotewrite', 'monitor-prom-remotewrite/tidb-cluster.yaml']],
    after: [
      ['tidb-cluster', 'basic/tidb-monitor.yaml'],
      ['shards', 'monitor-shards/tidb-monitor.yaml'],
      ['remotewrite', 'monitor-prom-remotewrite/tidb-monitor.yaml'],
      ['remotewrite', 'monitor-prom-remotewrite/thanos-receiver.yaml'],
      ['remotewrite', 'monitor-prom-remotewrite/thanos-query.yaml'],
    ],
    inVpc: false,
    monitorNs: 'shards',
    monitorSets: ['basic-monitor', 'basic-monitor-shard-1'],
    services: ['basic-prometheus', 'basic-monitor-reloader', 'basic-prometheus-shard-1', 'basic-monitor-reloader-shard-1'],
  },
  {
    name: 'monitor-multiple-cluster-non-tls (two clusters in two namespaces, a cluster-scoped monitor in a third)',
    namespaces: ['ns1', 'ns2', 'monitoring'],
    clusters: [['ns1', 'monitor-multiple-cluster-non-tls/ns1-cluster.yaml'], ['ns2', 'monitor-multiple-cluster-non-tls/ns2-cluster.yaml']],
    after: [['monitoring', 'monitor-multiple-cluster-non-tls/tidb-monitor.yaml']],
    inVpc: false,
    monitorNs: 'monitoring',
    monitorSets: ['monitor-monitor'],
    services: ['monitor-prometheus', 'monitor-grafana', 'monitor-monitor-reloader'],
  },
  {
    name: 'monitor-multiple-cluster-tls (the same, the clusters with tlsCluster and their certificates)',
    namespaces: ['ns1', 'ns2', 'monitoring'],
    before: `${tlsSecrets('ns1')}---\n${tlsSecrets('ns2')}`,
    inVpc: true,
    clusters: [['ns1', 'monitor-multiple-cluster-tls/ns1-cluster.yaml'], ['ns2', 'monitor-multiple-cluster-tls/ns2-cluster.yaml']],
    after: [['monitoring', 'monitor-multiple-cluster-tls/tidb-monitor.yaml']],
    monitorNs: 'monitoring',
    monitorSets: ['monitor-monitor'],
    services: ['monitor-prometheus', 'monitor-grafana', 'monitor-monitor-reloader'],
  },
  {
    name: 'monitor-dynamic-configmap (the monitor beside the first cluster)',
    namespaces: ['ns1', 'ns2'],
    clusters: [['ns1', 'monitor-dynamic-configmap/ns1-cluster.yaml'], ['ns2', 'monitor-dynamic-configmap/ns2-cluster.yaml']],
    after: [['ns1', 'monitor-dynamic-configmap/tidb-monitor.yaml']],
    inVpc: false,
    monitorNs: 'ns1',
    monitorSets: ['monitor-monitor'],
    services: ['monitor-prometheus', 'monitor-grafana', 'monitor-monitor-reloader'],
  },
];

/**
 * Runs `body` with a `sim serve` of its own and, once `body` has started one, its reconciler; both are
 * stopped afterwards (the reconciler first), whatever `body` did.
 */
async function withSimServe(inVpc: boolean, body: (s: SimServe, startRun: () => Reconciler) => Promise<void>): Promise<void> {
  const s = await startSimServe('200ms');
  let run: Reconciler | undefined;
  try {
    await body(s, () => (run = startReconciler(s, inVpc)));
  } finally {
    await run?.stop();
    await s.stop();
  }
}

describe("TiDB Operator's TidbMonitor examples through kubectl, with the reconciler running", () => {
  // Concurrently: each example has a server and a reconciler of its own, and spends most of its time
  // waiting on their wall clock (pod start-ups, the reconciler's batching windows), not on the CPU.
  it.concurrent.each(EXAMPLES_RUN.map((e) => ({ ...e, label: e.name })))(
    '$label: every document applies unchanged and the monitor reaches Ready',
    (example) =>
      withSimServe(example.inVpc, async (s, startRun) => {
        // Arrange
        for (const ns of example.namespaces) await s.ok(['create', 'namespace', ns]);
        if (example.before !== undefined) await s.ok(['apply', '-f', '-'], example.before);
        for (const [ns, file] of example.clusters) await s.ok(['apply', '-n', ns, '-f', join(EXAMPLES, file)]);
        const run = startRun();

        // Act: the README applies the monitor once the cluster is Ready.
        for (const [ns] of example.clusters) {
          await eventually(() => s.ok(['get', 'tc', '-n', ns, '-o', 'jsonpath={.items[*].status.conditions[?(@.type=="Ready")].status}']), (v) => v.trim() === 'True', 240_000, run.output);
        }
        const applied = [];
        for (const [ns, file] of example.after) applied.push(await s.ok(['apply', '-n', ns, '-f', join(EXAMPLES, file)]));

        // Assert
        expect(applied.join('')).toMatch(/tidbmonitor\.pingcap\.com\/\S+ created/);
        const ns = example.monitorNs;
        const ready = (sets: Record<string, string>) => example.monitorSets.every((n) => /^([1-9]\d*)\/\1$/.test(sets[n] ?? ''));
        await eventually(() => statefulSets(s, ns), ready, 180_000, run.output);
        const services = (await s.ok(['get', 'svc', '-n', ns, '-o', 'name'])).trim().split('\n');
        expect(services).toEqual(expect.arrayContaining(example.services.map((n) => `service/${n}`)));
        const configMaps = (await s.ok(['get', 'cm', '-n', ns, '-o', 'name'])).trim().split('\n');
        expect(configMaps).toContain(`configmap/${example.monitorSets[0] ?? ''}`);
        const tm = (await s.ok(['get', 'tm', '-n', ns])).trim().split('\n');
        expect(tm[0]?.trim().split(/\s+/)).toEqual(['NAME', 'AGE']);
        const status = await eventually(() => s.ok(['get', 'tm', '-n', ns, '-o', 'jsonpath={.items[0].status.statefulSet.readyReplicas}']), (v) => v.trim() === '1', 60_000, run.output);
        expect(status.trim()).toBe('1');
        if (example.inVpc && example.before !== undefined) {
          // The example with certificates: behind the VPC proxy PD serves its Secret's certificate and requires a client certificate
          // its cluster's CA signed: ns1's reaches it, ns2's does not (outside the VPC, none would).
          const own = TLS_PKI.ns1;
          expect(await readPdThroughVpc(s, 'ns1', new ClientCertificate(own.ca.cert, own.client.cert, own.client.key))).toBe('HTTP 200');
          const other = TLS_PKI.ns2;
          expect(await readPdThroughVpc(s, 'ns1', new ClientCertificate(own.ca.cert, other.client.cert, other.client.key))).toMatch(/^ClientCertificateRefusedError: /);
        }
        if (example.name.startsWith('basic')) {
          // The other monitors of this server, and the Thanos receiver the remote write points at.
          await eventually(() => statefulSets(s, 'tidb-cluster'), (v) => v['basic-monitor'] === '1/1', 120_000, run.output);
          await eventually(() => statefulSets(s, 'remotewrite'), (v) => v['basic-monitor'] === '1/1' && v['thanos-receiver'] === '1/1', 120_000, run.output);
          const prom = await s.ok(['get', 'cm', 'basic-monitor', '-n', 'remotewrite', '-o', 'jsonpath={.data.prometheus\\.yml}']);
          expect(prom).toContain('url: http://thanos-receiver-0.thanos-receiver.default.svc:19291/api/v1/receive');
        }
      }),
    600_000,
  );
});
