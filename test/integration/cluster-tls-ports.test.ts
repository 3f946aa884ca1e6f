/**
 * Cluster TLS in the simulated world, port by port: with `tlsCluster.enabled` the objects the
 * reconciler builds run TiDB, TiKV, TiFlash, TiCDC and Pump processes that serve their status or
 * API port as TLS listeners only, as the real servers do with the `[security]` files (or `cdc
 * server --ca/--cert/--key`) TiDB Operator gives them, each requiring a client certificate signed
 * by the cluster CA: https from inside the cluster's VPC with `<tc>-cluster-client-secret` answers;
 * the API server's pod proxy, which presents no certificate, is refused in the handshake (503
 * `remote error: tls: certificate required`); a certificate of another CA is refused; a function
 * outside the VPC gets no connection at all; plain http gets Go's 400. A certificate Secret without
 * its key makes the server exit.
 */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { KubeConfig } from '@kubernetes/client-node';
import { ComponentCaller } from '../../lib/components/caller.js';
import { ClientCertificateRefusedError } from '../../lib/components/reach-errors.js';
import { SimComponentNetwork } from '../../lib/local/sim-network.js';
import { selfSignedCert } from '../../lib/local/tls-front.js';
import { TransientError } from '../../lib/platform/errors.js';
import { NO_RETRY } from '../../lib/platform/retry.js';
import { parseScenario } from '../../lib/local/scenario/file.js';
import type { Scenario } from '../../lib/local/scenario/types.js';
import { createProgress } from '../../lib/local/scenario/progress.js';
import { SimStack } from '../../lib/local/sim-stack.js';
import { runScenario } from '../../lib/local/simulate.js';

const FILE = join(import.meta.dirname, '..', 'scenarios', 'cluster-tls-components.yaml');
const HTTP_TO_HTTPS = 'Client sent an HTTP request to an HTTPS server.';

function scenario(): Scenario {
  const parsed = parseScenario(readFileSync(FILE, 'utf8'), 'cluster-tls-components.yaml');
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.scenario;
}

/** Runs `s` with only its first timeline entry, then hands the live stack to `check`. */
async function withStack(s: Scenario, timeoutMs: number, check: (stack: SimStack, passed: boolean) => Promise<void>): Promise<void> {
  const first = s.timeline.slice(0, 1).map((t) => (t.verb === 'waitFor' ? { ...t, timeoutMs } : t));
  const stack = await SimStack.start({ ...s, timeline: first }, 1);
  try {
    const report = await runScenario(stack, createProgress({ quiet: true }));
    await check(stack, report.passed);
  } finally {
    await stack.stop();
  }
}

const get = async (stack: SimStack, target: string, path: string) => {
  // As the cluster admin: the world authenticates every request (ADR 0017).
  const res = await fetch(`${stack.world.url}/api/v1/namespaces/demo/pods/${target}/proxy${path}`, { headers: { Authorization: `Bearer ${stack.world.token ?? ''}` } });
  return { status: res.status, text: (await res.text()).trim() };
};

/** What a direct https request from a function `inVpc` (or not) got: the status, or the error's type and text. */
const direct = async (stack: SimStack, pod: string, port: number, path: string, inVpc = true) => {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(JSON.stringify(stack.world.kubeconfig()));
  const caller = ComponentCaller.direct(kubeConfig, new SimComponentNetwork(stack.world.proxy, { inVpc }), { retry: NO_RETRY, timeoutMs: 2000 });
  const subdomain = pod.replace(/-\d+$/, pod.includes('pump') ? '' : '-peer');
  try {
    return (await caller.call({ type: 'pod', namespace: 'demo', pod, subdomain, port, scheme: 'https' }, { method: 'GET', path }, `${pod}:${port}`)).status;
  } catch (err) {
    return err instanceof Error ? `${err.constructor.name}: ${err.message}` : String(err);
  }
};

const PORTS = [
  { name: 'PD client', pod: 'basic-pd-0', port: 2379, path: '/pd/api/v1/health' },
  { name: 'TiDB status', pod: 'basic-tidb-0', port: 10080, path: '/status' },
  { name: 'TiKV status', pod: 'basic-tikv-0', port: 20180, path: '/metrics' },
  { name: 'TiFlash proxy status', pod: 'basic-tiflash-0', port: 20292, path: '/tiflash/store-status' },
  { name: 'TiCDC', pod: 'basic-ticdc-0', port: 8301, path: '/status' },
  { name: 'Pump', pod: 'basic-pump-0', port: 8250, path: '/status' },
];

describe('a cluster built by the reconciler with cluster TLS serves every component port over TLS only', () => {
  it('each port answers https from the VPC with the cluster client certificate, refuses the proxy, and gets a 400 for plain http', async () => {
    await withStack(scenario(), 15 * 60_000, async (stack, passed) => {
      // Assess
      expect(passed).toBe(true);
      for (const { name, pod, port, path } of PORTS) {
        const proxied = await get(stack, `https:${pod}:${port}`, path);
        const plain = await get(stack, `${pod}:${port}`, path);
        expect({ name, direct: await direct(stack, pod, port, path), proxied: proxied.status, refusal: JSON.parse(proxied.text).message, plain }).toEqual({
          name,
          direct: 200,
          proxied: 503,
          refusal: 'error trying to reach service: remote error: tls: certificate required',
          plain: { status: 400, text: HTTP_TO_HTTPS },
        });
      }
    });
  });

  it.each([
    { name: 'a function outside the VPC gets no connection (a timeout)', inVpc: false, otherCa: false, error: TransientError, text: 'timed out' },
    { name: 'a client certificate of another CA is refused in the handshake', inVpc: true, otherCa: true, error: ClientCertificateRefusedError, text: 'remote error: tls: bad certificate' },
  ])('$name', async ({ inVpc, otherCa, error, text }) => {
    // Prepare: the client Secret keeps the cluster CA (so the client trusts the components) but holds a certificate no cluster CA issued.
    const s = scenario();
    const objects = s.objects.map((o) => {
      if (!otherCa || o.metadata.name !== 'basic-cluster-client-secret') return o;
      return { ...o, data: { ...(o['data'] as Record<string, string>), 'tls.crt': Buffer.from(selfSignedCert().certPem).toString('base64') } };
    });
    // One PD member: it starts without discovery, which presents the same client certificate and is refused as well.
    const clusters = s.clusters.map((c) => ({ ...c, spec: { ...(c['spec'] as Record<string, unknown>), pd: { ...(c['spec'] as { pd: Record<string, unknown> }).pd, replicas: 1 } } }));
    await withStack({ ...s, objects, cluster: clusters[0] ?? s.cluster, clusters }, 3 * 60_000, async (stack) => {
      // Act
      const result = await direct(stack, 'basic-pd-0', 2379, '/pd/api/v1/health', inVpc);
      // Assess
      expect(result).toEqual(expect.stringContaining(error.name));
      expect(result).toEqual(expect.stringContaining(text));
    });
  });

  it('a TiDB pod with a command readiness probe gets Ready: its https curl trusts the cluster CA and presents TiDB’s certificate', async () => {
    // Prepare
    const s = scenario();
    const clusters = s.clusters.map((c) => {
      const spec = c['spec'] as { tidb: Record<string, unknown> };
      return { ...c, spec: { ...spec, tidb: { ...spec.tidb, readinessProbe: { type: 'command' } } } };
    });
    // Act
    await withStack({ ...s, cluster: clusters[0] ?? s.cluster, clusters }, 15 * 60_000, async (stack, passed) => {
      // Assess
      expect(passed).toBe(true);
      // The cluster's Ready follows TiDB's /status (as v1); the pod's own Ready follows the probe.
      await stack.clock.advance(60_000);
      const pod = stack.world.store.get('Pod', 'demo', 'basic-tidb-0');
      const ready = (pod?.status?.conditions as { type: string; status: string }[] | undefined)?.find((c) => c.type === 'Ready');
      expect(ready?.status).toBe('True');
      const probe = (pod?.spec?.containers?.[0] as { readinessProbe?: { exec?: { command: string[] } } }).readinessProbe;
      expect(probe?.exec?.command).toEqual(expect.arrayContaining(['https://127.0.0.1:10080/status', '--cacert', '/var/lib/tidb-tls/ca.crt']));
    });
  });

  it.each([
    { name: 'TiDB', secret: 'basic-tidb-cluster-secret', pod: 'basic-tidb-0' },
    { name: 'TiKV', secret: 'basic-tikv-cluster-secret', pod: 'basic-tikv-0' },
    { name: 'TiFlash', secret: 'basic-tiflash-cluster-secret', pod: 'basic-tiflash-0' },
    { name: 'TiCDC', secret: 'basic-ticdc-cluster-secret', pod: 'basic-ticdc-0' },
    { name: 'Pump', secret: 'basic-pump-cluster-secret', pod: 'basic-pump-0' },
  ])('$name exits at start when its certificate Secret has no tls.key, and the cluster never gets Ready', async ({ secret, pod }) => {
    // Prepare
    const s = scenario();
    const objects = s.objects.map((o) => {
      if (o.metadata.name !== secret) return o;
      const { 'tls.key': _key, ...data } = o['data'] as Record<string, string>;
      return { ...o, data };
    });
    // Act
    await withStack({ ...s, objects }, 8 * 60_000, async (stack, passed) => {
      // Assess
      expect(passed).toBe(false);
      const status = stack.world.store.get('Pod', 'demo', pod)?.status as { containerStatuses?: { restartCount: number; ready: boolean }[] } | undefined;
      expect(status?.containerStatuses?.[0]?.ready).toBe(false);
      expect(status?.containerStatuses?.[0]?.restartCount).toBeGreaterThanOrEqual(1);
    });
  });
});
