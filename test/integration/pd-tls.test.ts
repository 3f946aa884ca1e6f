/**
 * Cluster TLS end to end in the simulated world: the PD objects the reconciler builds with
 * `tlsCluster.enabled` run a PD that answers only https, and only to a client presenting a
 * certificate signed by the cluster CA — reached directly from the cluster's VPC with
 * `<tc>-cluster-client-secret`, never through the API server proxy, which presents none — and every
 * half-wired variant fails as it would on a real cluster — a missing Secret holds the pods in
 * ContainerCreating, missing cert files or config make PD crash-loop, plain http is refused.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { parse } from 'lossless-json';

import { ComponentCaller } from '../../lib/components/caller.js';
import { ClientCertificateRefusedError } from '../../lib/components/reach-errors.js';
import { KubeClient } from '../../lib/kube/client.js';
import { TerminalError, TransientError } from '../../lib/platform/errors.js';
import { PdClient } from '../../lib/pd/client.js';
import type { TidbCluster } from '../../lib/model/kube.js';
import { pdClientService, pdPeerService } from '../../lib/reconcile/components/pd/services.js';
import { desiredPdStatefulSet, planPdConfigMapObject } from '../support/pd-rules.js';
import type { KubeObject } from '../../lib/sim/object.js';
import { changeSpec, ruleInputOf, snapshot, tidbCluster, withCluster } from '../support/fixtures.js';
import { type BareServer, startBareServer } from '../support/api-server.js';
import { type World, directCaller, handCluster, startWorld } from './tidb-harness.js';

const PD_LABELS = { 'app.kubernetes.io/instance': 'basic', 'app.kubernetes.io/component': 'pd' };
const b64 = (text: string): string => Buffer.from(text).toString('base64');
const CERTS = { 'ca.crt': b64('ca'), 'tls.crt': b64('cert'), 'tls.key': b64('key') };
const HTTP_TO_HTTPS = 'Client sent an HTTP request to an HTTPS server.';

describe('the API server proxy and TLS listeners', () => {
  let s: BareServer;
  afterEach(async () => s.close());

  async function serve(tls: boolean, clientCa?: string): Promise<void> {
    s = await startBareServer({});
    const pod = s.store.create('Pod', { metadata: { name: 'basic-pd-0', namespace: 'demo', labels: PD_LABELS }, spec: { containers: [{ name: 'pd', image: 'pingcap/pd:v8.5.0' }] } });
    s.store.update('Pod', { ...pod, status: { phase: 'Running', podIP: '10.0.0.1', conditions: [{ type: 'Ready', status: 'True' }] } }, { subresource: 'status' });
    s.store.create('Service', { metadata: { name: 'basic-pd', namespace: 'demo' }, spec: { selector: PD_LABELS, ports: [{ name: 'client', port: 2379 }] } });
    s.proxy.register('demo', 'basic-pd-0', 2379, () => ({ status: 200, body: '{"id": 7}' }), { tls, ...(clientCa !== undefined ? { clientCa } : {}) });
  }

  const client = (scheme: 'http' | 'https') => new PdClient(ComponentCaller.viaApiProxy(s.kubeConfig), { namespace: 'demo', tcName: 'basic', scheme });

  it.each<{ name: string; tls: boolean; clientCa?: string; scheme: 'http' | 'https'; error?: { type: typeof TerminalError | typeof TransientError; text: string } }>([
    { name: 'http to a plain listener answers', tls: false, scheme: 'http' },
    {
      name: 'a TLS listener with a client CA (every TiDB component under tlsCluster) refuses the proxy: it presents no certificate',
      tls: true,
      clientCa: 'ca',
      scheme: 'https',
      error: { type: ClientCertificateRefusedError, text: 'error trying to reach service: remote error: tls: certificate required' },
    },
    { name: 'https to a TLS listener answers', tls: true, scheme: 'https' },
    { name: 'plain http to a TLS listener gets Go’s 400', tls: true, scheme: 'http', error: { type: TerminalError, text: HTTP_TO_HTTPS } },
    { name: 'https to a plain listener fails the handshake (503)', tls: false, scheme: 'https', error: { type: TransientError, text: 'tls: first record does not look like a TLS handshake' } },
  ])('$name', async ({ tls, clientCa, scheme, error }) => {
    // Prepare
    await serve(tls, clientCa);
    // Act
    const call = client(scheme).getCluster();
    // Assess
    if (!error) return expect((await call).id).toBe('7');
    await expect(call).rejects.toThrow(error.type);
    await expect(client(scheme).getCluster()).rejects.toThrow(error.text);
  });

  it.each([
    { name: 'an unknown scheme', target: 'ftp:basic-pd:2379', status: 400 },
    { name: 'an empty name', target: 'https::2379', status: 400 },
    { name: 'too many parts', target: 'https:basic-pd:2379:1', status: 400 },
    { name: 'an explicit http scheme', target: 'http:basic-pd:2379', status: 200 },
  ])('the proxy target is [scheme:]name[:port]: $name', async ({ target, status }) => {
    await serve(false);
    const res = await fetch(`${s.url}/api/v1/namespaces/demo/services/${target}/proxy/pd/api/v1/cluster`);
    expect(res.status).toBe(status);
  });
});

describe('KubeClient.hasSecret: only existence crosses the port', () => {
  let s: BareServer;
  afterEach(async () => s.close());

  it.each([
    { name: 'an existing Secret', create: true, want: true },
    { name: 'a missing Secret (404)', create: false, want: false },
  ])('$name', async ({ create, want }) => {
    s = await startBareServer({});
    if (create) s.store.create('Secret', { metadata: { name: 'basic-cluster-client-secret', namespace: 'demo' }, data: CERTS });
    const kube = KubeClient.fromKubeConfig(s.kubeConfig);
    expect(await kube.hasSecret('demo', 'basic-cluster-client-secret')).toBe(want);
  });
});

describe('a PD built by the reconciler with cluster TLS, in the simulated world', () => {
  let world: World | undefined;
  afterEach(async () => {
    await world?.stop();
    world = undefined;
  });

  const tlsCluster = (): TidbCluster => tidbCluster(changeSpec((spec) => ({ ...spec, tlsCluster: { enabled: true }, pd: { ...spec.pd, replicas: 3 } })));

  /** Deploys discovery (as the TLS-aware discovery Deployment does) and PD's objects as the reconciler builds them, after `tweak`. */
  async function deploy(w: World, secrets: Record<string, Record<string, string>>, tweak: (sts: KubeObject, cm: KubeObject) => void = () => undefined): Promise<void> {
    const tc = tlsCluster();
    await w.deploy(handCluster({ pd: 3 }), ['tidbcluster', 'discovery']);
    await w.edit('TidbCluster', 'basic', (o) => (o.spec.tlsCluster = { enabled: true }));
    await w.edit('Deployment', 'basic-discovery', (o) => o.spec.template.spec.containers[0].env.push({ name: 'TC_TLS_ENABLED', value: 'true' }));
    for (const [name, data] of Object.entries(secrets)) {
      const res = await w.api('POST', '/api/v1/namespaces/demo/secrets', { metadata: { name, namespace: 'demo' }, type: 'kubernetes.io/tls', data });
      expect(res.status).toBe(201);
    }
    const input = ruleInputOf(snapshot(withCluster(tc)));
    const cm = planPdConfigMapObject(input).configMap as KubeObject;
    const sts = desiredPdStatefulSet(input, { replicas: 3, partition: 3 }) as unknown as KubeObject;
    tweak(sts, cm);
    // Owned by the TidbCluster the world holds (the fixture's uid is not its uid; the GC would collect them).
    const uid = (await w.object('TidbCluster', 'basic')).json.metadata.uid;
    const owned = [pdClientService(tc), pdPeerService(tc), cm, sts].map((o) => ({ ...o, metadata: { ...o.metadata, ownerReferences: (o.metadata?.ownerReferences ?? []).map((r) => ({ ...r, uid })) } }) as KubeObject);
    for (const o of owned) await w.create(o.kind ?? '', o);
  }

  const proxiedHttpsPd = (w: World, path: string) => w.api('GET', `/api/v1/namespaces/demo/services/https:basic-pd:2379/proxy${path}`);
  /** PD over https from inside the VPC with the cluster client certificate: status and lossless body. */
  const httpsPd = async (w: World, path: string) => {
    try {
      const answer = await directCaller(w).call({ type: 'service', namespace: 'demo', service: 'basic-pd', port: 2379, scheme: 'https' }, { method: 'GET', path }, `PD ${path}`);
      return { status: answer.status, json: parse(answer.text) as any };
    } catch (err) {
      return { status: 0, json: undefined, error: err };
    }
  };
  const WITH_CLIENT = { 'basic-cluster-client-secret': CERTS };
  const pdContainer = (sts: KubeObject) => sts.spec.template.spec.containers[0];

  it('serves https only, to clients with the cluster certificate: members advertise https URLs, the proxy is refused, plain http gets a 400', async () => {
    // Prepare
    const w = (world = await startWorld());
    await deploy(w, { 'basic-pd-cluster-secret': CERTS, ...WITH_CLIENT });
    // Act
    await w.waitFor('3 healthy PD members over https', async () => {
      const res = await httpsPd(w, '/pd/api/v1/health');
      return res.status === 200 && res.json.length === 3 && res.json.every((m: { health: boolean }) => m.health);
    });
    // Assess
    const members = (await httpsPd(w, '/pd/api/v1/members')).json.members;
    expect(members.map((m: { client_urls: string[] }) => m.client_urls[0]).sort()).toEqual([0, 1, 2].map((i) => `https://basic-pd-${i}.basic-pd-peer.demo.svc:2379`));
    const proxied = await proxiedHttpsPd(w, '/pd/api/v1/health');
    expect([proxied.status, proxied.json?.message]).toEqual([503, 'error trying to reach service: remote error: tls: certificate required']);
    const plain = await w.pd('/pd/api/v1/health');
    expect([plain.status, plain.text.trim()]).toEqual([400, HTTP_TO_HTTPS]);
  });

  it('without the PD cluster Secret the pods wait in ContainerCreating, and start once it exists', async () => {
    const w = (world = await startWorld());
    await deploy(w, WITH_CLIENT);
    await w.waitFor('pod basic-pd-0 scheduled', async () => (await w.object('Pod', 'basic-pd-0')).json?.spec?.nodeName !== undefined);
    await w.clock.advance(60_000);
    const waiting = (await w.object('Pod', 'basic-pd-0')).json.status;
    expect([waiting.phase, waiting.containerStatuses?.[0]?.state?.waiting?.reason]).toEqual(['Pending', 'ContainerCreating']);
    await w.api('POST', '/api/v1/namespaces/demo/secrets', { metadata: { name: 'basic-pd-cluster-secret', namespace: 'demo' }, data: CERTS });
    await w.waitFor('PD over https', async () => (await httpsPd(w, '/pd/api/v1/health')).status === 200);
  });

  it.each<{ name: string; secret: Record<string, string>; tweak: (sts: KubeObject, cm: KubeObject) => void }>([
    {
      name: 'https URLs without [security] config (the half-wired TLS of a start script alone)',
      secret: CERTS,
      tweak: (sts, cm) => {
        pdContainer(sts).volumeMounts = pdContainer(sts).volumeMounts.filter((m: { name: string }) => m.name !== 'pd-tls');
        sts.spec.template.spec.volumes = sts.spec.template.spec.volumes.filter((v: { name: string }) => v.name !== 'pd-tls');
        cm['data'] = { ...(cm['data'] as Record<string, string>), 'config-file': '[replication]\nmax-replicas = 3\n' };
      },
    },
    {
      name: '[security] paths with no volume mounted there',
      secret: CERTS,
      tweak: (sts) => {
        pdContainer(sts).volumeMounts = pdContainer(sts).volumeMounts.filter((m: { name: string }) => m.name !== 'pd-tls');
      },
    },
    { name: 'a Secret without tls.key', secret: { 'ca.crt': CERTS['ca.crt'], 'tls.crt': CERTS['tls.crt'] }, tweak: () => undefined },
  ])('crash-loops with $name', async ({ secret, tweak }) => {
    const w = (world = await startWorld());
    await deploy(w, { 'basic-pd-cluster-secret': secret }, tweak);
    await w.waitFor('a PD restart', async () => (await w.object('Pod', 'basic-pd-0')).json?.status?.containerStatuses?.[0]?.restartCount >= 2, 5 * 60_000);
    expect(w.sim.snapshot('demo', 'basic').members).toEqual([]);
  });
});
