import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { kubeConfigFromFile } from '../../lib/kube/auth.js';
import { KubeClient } from '../../lib/kube/client.js';
import { isAlreadyExists } from '../../lib/kube/errors.js';
import { OWNED_KINDS, type EventInput, type KubeObject, type OwnedKind } from '../../lib/kube/port.js';
import { RealClock } from '../../lib/platform/clock.js';
import { NO_RETRY } from '../../lib/platform/retry.js';
import { ConflictError, NotFoundError, TerminalError, TransientError } from '../../lib/platform/errors.js';
import { ApiError } from '../../lib/sim/api-error.js';
import { writeSimKubeconfig } from '../../lib/sim/kubeconfig.js';
import { type BareServer, startBareServer } from '../support/api-server.js';

const OWNED = { 'app.kubernetes.io/instance': 'basic', 'app.kubernetes.io/managed-by': 'tidb-operator' };
const FOREIGN = { 'app.kubernetes.io/instance': 'other', 'app.kubernetes.io/managed-by': 'tidb-operator' };
const PODSPEC = { containers: [{ name: 'c', image: 'pingcap/pd:v8.5.0' }] };

/** A valid object of `kind` named `name` in `demo`, labelled `labels`. */
function fixture(kind: OwnedKind | 'TidbCluster', name: string, labels: Record<string, string>): KubeObject {
  const metadata = { name, namespace: 'demo', labels };
  const workload = { selector: { matchLabels: labels }, template: { metadata: { labels }, spec: PODSPEC } };
  const specs: Record<string, Record<string, unknown>> = {
    Pod: { spec: PODSPEC },
    StatefulSet: { spec: workload },
    Deployment: { spec: workload },
    Service: { spec: { ports: [{ port: 2379 }] } },
    ConfigMap: { data: { 'config-file': 'x' } },
    PersistentVolumeClaim: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
    ServiceAccount: {},
    Role: { rules: [] },
    RoleBinding: { roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' }, subjects: [] },
    Event: { involvedObject: { kind: 'Pod', name: 'p', namespace: 'demo' }, reason: 'R', message: 'm' },
    TidbCluster: { spec: { pd: { replicas: 3 } } },
  };
  return { kind, metadata, ...specs[kind] };
}

/** A kubeconfig for a plain-HTTP server; client-node 2.x needs insecure-skip-tls-verify for http://. */
function kubeconfigYaml(server: string, token: string): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters: [{name: sim, cluster: {server: "' + server + '", insecure-skip-tls-verify: true}}]',
    'users: [{name: u, user: {token: ' + token + '}}]',
    'contexts: [{name: sim, context: {cluster: sim, user: u}}]',
    'current-context: sim',
  ].join('\n');
}

let s: BareServer;
let kube: KubeClient;
beforeEach(async () => {
  s = await startBareServer({ token: 'client-token' });
  kube = KubeClient.fromKubeConfig(s.kubeConfig, { timeoutMs: 5000 });
});
afterEach(async () => {
  await s.close();
});

function requests(): number {
  return [...s.server.requestCounts.values()].reduce((a, b) => a + b, 0);
}

describe('reads: one label-selected LIST per kind', () => {
  it.each(OWNED_KINDS.map((kind) => ({ name: kind, kind })))('listing $name returns only the owned objects, in one GET', async ({ kind }) => {
    // Prepare
    s.store.create(kind, fixture(kind, 'owned-a', OWNED));
    s.store.create(kind, fixture(kind, 'owned-b', OWNED));
    s.store.create(kind, fixture(kind, 'foreign', FOREIGN));
    const getsBefore = s.server.requestCounts.get('GET') ?? 0;
    // Act
    const list = await kube.listOwned('demo', kind, OWNED);
    // Assess
    expect(s.server.requestCounts.get('GET')).toBe(getsBefore + 1);
    expect(list.items.map((o) => o.metadata.name)).toEqual(['owned-a', 'owned-b']);
    expect(list.items.every((o) => o.kind === kind && typeof o.apiVersion === 'string')).toBe(true);
    expect(Number(list.resourceVersion)).toBeGreaterThan(0);
  });

  it('a selector in query form is passed through as is', async () => {
    s.store.create('ConfigMap', fixture('ConfigMap', 'a', OWNED));
    s.store.create('ConfigMap', fixture('ConfigMap', 'b', FOREIGN));
    const list = await kube.listOwned('demo', 'ConfigMap', 'app.kubernetes.io/instance in (basic)');
    expect(list.items.map((o) => o.metadata.name)).toEqual(['a']);
  });

  it('an empty selector is refused before any request', async () => {
    const before = requests();
    await expect(kube.listOwned('demo', 'Pod', {})).rejects.toBeInstanceOf(TerminalError);
    expect(requests()).toBe(before);
  });

  it('a TidbCluster is read as plain JSON, and a missing one is NotFoundError', async () => {
    s.store.create('TidbCluster', fixture('TidbCluster', 'basic', {}));
    const tc = await kube.getTidbCluster('demo', 'basic');
    expect(tc).toMatchObject({ apiVersion: 'pingcap.com/v1alpha1', kind: 'TidbCluster', spec: { pd: { replicas: 3 } } });
    expect(typeof tc.metadata.creationTimestamp).toBe('string');
    await expect(kube.getTidbCluster('demo', 'nope')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('the sweep pages through TidbClusters of every namespace with continue tokens', async () => {
    for (const [ns, name] of [['default', 'a'], ['default', 'b'], ['demo', 'c'], ['demo', 'd'], ['demo', 'e']] as const) {
      s.store.create('TidbCluster', { ...fixture('TidbCluster', name, {}), metadata: { name, namespace: ns } });
    }
    const seen: string[] = [];
    const sizes: number[] = [];
    let token: string | undefined;
    do {
      const page = await kube.listTidbClusters({ limit: 2, ...(token ? { continue: token } : {}) });
      sizes.push(page.items.length);
      seen.push(...page.items.map((o) => `${o.metadata.namespace}/${o.metadata.name}`));
      token = page.continue;
    } while (token);
    expect(sizes).toEqual([2, 2, 1]);
    expect(seen).toEqual(['default/a', 'default/b', 'demo/c', 'demo/d', 'demo/e']);
  });
});

describe('PersistentVolumes: cluster-scoped reads and patches', () => {
  const pv = (name: string, labels: Record<string, string>) => ({
    metadata: { name, labels },
    spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], persistentVolumeReclaimPolicy: 'Delete', csi: { driver: 'ebs.csi.aws.com', volumeHandle: `vol-${name}` } },
  });

  it('volumes are listed by label and read by name without a namespace, and a missing one is NotFoundError', async () => {
    s.store.create('PersistentVolume', pv('pv-a', { ...OWNED, 'app.kubernetes.io/namespace': 'demo' }));
    s.store.create('PersistentVolume', pv('pv-b', {}));
    const listed = await kube.listPersistentVolumes({ ...OWNED, 'app.kubernetes.io/namespace': 'demo' });
    expect(listed.items.map((i) => [i.kind, i.metadata.name])).toEqual([['PersistentVolume', 'pv-a']]);
    expect((await kube.getPersistentVolume('pv-b')).metadata.name).toBe('pv-b');
    await expect(kube.getPersistentVolume('pv-c')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('a volume\'s reclaim policy is merge-patched at the observed resourceVersion, and a stale one conflicts', async () => {
    const created = s.store.create('PersistentVolume', pv('pv-a', {}));
    const version = { resourceVersion: created.metadata.resourceVersion ?? '' };
    const patched = await kube.patch('PersistentVolume', '', 'pv-a', { spec: { persistentVolumeReclaimPolicy: 'Retain' } }, version);
    expect(patched.spec.persistentVolumeReclaimPolicy).toBe('Retain');
    await expect(kube.patch('PersistentVolume', '', 'pv-a', { metadata: { labels: { a: 'b' } } }, version)).rejects.toBeInstanceOf(ConflictError);
  });
});

describe('writes carry preconditions', () => {
  it('create returns the stored object; creating the name again is an AlreadyExists ConflictError', async () => {
    const created = await kube.create(fixture('ConfigMap', 'cfg', OWNED));
    expect(created.metadata.uid).toBeDefined();
    const err = await kube.create(fixture('ConfigMap', 'cfg', OWNED)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConflictError);
    expect(isAlreadyExists(err)).toBe(true);
    expect((err as Error).message).toContain('already exists');
  });

  it('an update without resourceVersion is refused before any request', async () => {
    const created = await kube.create(fixture('ConfigMap', 'cfg', OWNED));
    const before = requests();
    const { resourceVersion: _rv, ...meta } = created.metadata;
    await expect(kube.update({ ...created, metadata: meta, data: { x: '1' } })).rejects.toBeInstanceOf(TerminalError);
    expect(requests()).toBe(before);
  });

  it('an update with the observed resourceVersion succeeds; a stale one is a ConflictError', async () => {
    const created = await kube.create(fixture('ConfigMap', 'cfg', OWNED));
    const updated = await kube.update({ ...created, data: { x: '1' } });
    expect(Number(updated.metadata.resourceVersion)).toBeGreaterThan(Number(created.metadata.resourceVersion));
    const err = await kube.update({ ...created, data: { x: '2' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConflictError);
    expect(isAlreadyExists(err)).toBe(false);
    expect((err as Error).message).toContain('the object has been modified');
    expect(s.store.get('ConfigMap', 'demo', 'cfg')?.data).toEqual({ x: '1' });
  });

  it('updateStatus replaces only a TidbCluster status and refuses other kinds', async () => {
    const tc = await kube.create(fixture('TidbCluster', 'basic', {}));
    const after = await kube.updateStatus({ ...tc, spec: { pd: { replicas: 9 } }, status: { pd: { phase: 'Normal' } } });
    expect(after.status).toEqual({ pd: { phase: 'Normal' } });
    expect(after.spec).toEqual({ pd: { replicas: 3 } });
    await expect(kube.updateStatus({ ...tc, status: { x: 1 } })).rejects.toBeInstanceOf(ConflictError);
    await expect(kube.updateStatus({ ...fixture('Pod', 'p', OWNED), metadata: { name: 'p', namespace: 'demo', resourceVersion: '1' } })).rejects.toBeInstanceOf(TerminalError);
  });

  it('a merge patch applies at the observed resourceVersion and conflicts at a stale one', async () => {
    const created = await kube.create(fixture('ConfigMap', 'cfg', OWNED));
    const patched = await kube.patch('ConfigMap', 'demo', 'cfg', { data: { extra: 'y' } }, { resourceVersion: created.metadata.resourceVersion ?? '' });
    expect(patched.data).toEqual({ 'config-file': 'x', extra: 'y' });
    const stale = kube.patch('ConfigMap', 'demo', 'cfg', { data: { extra: 'z' } }, { resourceVersion: created.metadata.resourceVersion ?? '' });
    await expect(stale).rejects.toBeInstanceOf(ConflictError);
    await expect(kube.patch('ConfigMap', 'demo', 'cfg', { data: {} }, { resourceVersion: '' })).rejects.toBeInstanceOf(TerminalError);
  });

  it('a delete whose uid precondition no longer matches is a ConflictError and deletes nothing', async () => {
    const first = await kube.create(fixture('ConfigMap', 'cfg', OWNED));
    s.store.delete('ConfigMap', 'demo', 'cfg');
    s.store.create('ConfigMap', fixture('ConfigMap', 'cfg', OWNED));
    const err = await kube.delete('ConfigMap', 'demo', 'cfg', { uid: first.metadata.uid ?? '' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConflictError);
    expect((err as Error).message).toContain('Precondition failed');
    expect(s.store.get('ConfigMap', 'demo', 'cfg')).toBeDefined();
  });

  it('a delete with matching preconditions removes the object; a second is NotFoundError', async () => {
    const cm = await kube.create(fixture('ConfigMap', 'cfg', OWNED));
    await kube.delete('ConfigMap', 'demo', 'cfg', { uid: cm.metadata.uid ?? '', resourceVersion: cm.metadata.resourceVersion ?? '' });
    expect(s.store.get('ConfigMap', 'demo', 'cfg')).toBeUndefined();
    await expect(kube.delete('ConfigMap', 'demo', 'cfg', {})).rejects.toBeInstanceOf(NotFoundError);
  });

  it('the propagation policy reaches the server (Foreground leaves the owner waiting on its finalizer)', async () => {
    const sts = await kube.create(fixture('StatefulSet', 'basic-pd', OWNED));
    await kube.delete('StatefulSet', 'demo', 'basic-pd', { uid: sts.metadata.uid ?? '', propagationPolicy: 'Foreground' });
    expect(s.store.get('StatefulSet', 'demo', 'basic-pd')?.metadata.finalizers).toEqual(['foregroundDeletion']);
  });
});

describe('events are recorded once per occurrence and repeats counted', () => {
  const event = (occurrenceKey: string): EventInput => ({
    involvedObject: { kind: 'TidbCluster', namespace: 'demo', name: 'basic', uid: 'uid-1', apiVersion: 'pingcap.com/v1alpha1' },
    type: 'Warning',
    reason: 'PDFailover',
    message: 'member basic-pd-1 unhealthy for 5m',
    occurrenceKey,
    labels: OWNED,
  });

  it('recording the same occurrence twice creates one Event with the full core/v1 shape', async () => {
    const first = await kube.createEvent(event('fence-7'));
    const again = await kube.createEvent(event('fence-7'));
    const list = await kube.listOwned('demo', 'Event', OWNED);
    expect([first.created, again.created, again.name === first.name]).toEqual([true, false, true]);
    expect(list.items).toHaveLength(1);
    expect(list.items[0]).toMatchObject({
      involvedObject: { kind: 'TidbCluster', name: 'basic', uid: 'uid-1' },
      type: 'Warning',
      reason: 'PDFailover',
      count: 1,
      source: { component: 'tidb-reconciler' },
    });
    expect(list.items[0]?.firstTimestamp).toBe(list.items[0]?.lastTimestamp);
  });

  it('a new occurrence of the same report is counted on the one Event, as client-go aggregates it; each occurrence once', async () => {
    // Act
    const first = await kube.createEvent(event('fence-7'));
    const repeat = await kube.createEvent(event('fence-8'));
    const retried = await kube.createEvent(event('fence-8'));
    const third = await kube.createEvent(event('fence-9'));
    // Assess
    expect([first.created, repeat.counted, retried.counted, third.counted]).toEqual([true, true, false, true]);
    const items = (await kube.listOwned('demo', 'Event', OWNED)).items;
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ count: 3, reason: 'PDFailover' });
  });

  it('another message is another Event', async () => {
    await kube.createEvent(event('fence-7'));
    await kube.createEvent({ ...event('fence-8'), message: 'member basic-pd-2 unhealthy for 5m' });
    expect((await kube.listOwned('demo', 'Event', OWNED)).items).toHaveLength(2);
  });
});

describe('errors keep the Status message and map to typed errors', () => {
  it.each([
    { name: '403 Forbidden is terminal', code: 403, reason: 'Forbidden', type: TerminalError },
    { name: '400 BadRequest is terminal', code: 400, reason: 'BadRequest', type: TerminalError },
    { name: '429 TooManyRequests is transient', code: 429, reason: 'TooManyRequests', type: TransientError },
    { name: '500 InternalError is transient', code: 500, reason: 'InternalError', type: TransientError },
    { name: '503 ServiceUnavailable is transient', code: 503, reason: 'ServiceUnavailable', type: TransientError },
  ])('$name', async ({ code, reason, type }) => {
    s.server.requestHook = () => new ApiError(code, reason, `injected ${reason} for the test`);
    const err = await kube.listOwned('demo', 'Pod', OWNED).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(type);
    expect((err as Error).message).toContain(`injected ${reason} for the test`);
  });

  it('a 422 Invalid create is terminal and names the field', async () => {
    const err = await kube.create(fixture('ConfigMap', 'Bad_Name', OWNED)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TerminalError);
    expect((err as Error).message).toContain('metadata.name');
  });

  it('a kubeconfig file with the right token reaches the server; a wrong token is a TerminalError 401', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kube-client-'));
    try {
      writeFileSync(join(dir, 'good'), kubeconfigYaml(s.url, 'client-token'));
      writeFileSync(join(dir, 'bad'), kubeconfigYaml(s.url, 'wrong'));
      const fromFile = KubeClient.fromKubeConfig(kubeConfigFromFile(join(dir, 'good')));
      await expect(fromFile.listOwned('demo', 'Pod', OWNED)).resolves.toMatchObject({ items: [] });
      const wrong = KubeClient.fromKubeConfig(kubeConfigFromFile(join(dir, 'bad')));
      await expect(wrong.listOwned('demo', 'Pod', OWNED)).rejects.toBeInstanceOf(TerminalError);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an http:// server without insecure-skip-tls-verify is a TerminalError (client-node 2.x refuses it)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kube-client-'));
    try {
      writeFileSync(join(dir, 'config'), kubeconfigYaml(s.url, 'client-token').replace(', insecure-skip-tls-verify: true', ''));
      const client = KubeClient.fromKubeConfig(kubeConfigFromFile(join(dir, 'config')));
      const err = await client.listOwned('demo', 'Pod', OWNED).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TerminalError);
      expect((err as Error).message).toContain('skipTLSVerify');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the kubeconfig that sim serve writes is usable by the client', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kube-client-'));
    try {
      writeSimKubeconfig(join(dir, 'config'), s.url, 'client-token');
      const client = KubeClient.fromKubeConfig(kubeConfigFromFile(join(dir, 'config')));
      await expect(client.listOwned('demo', 'Pod', OWNED)).resolves.toMatchObject({ items: [] });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('every call has a deadline', () => {
  let hung: Server;
  let hungConfig: KubeConfig;
  beforeEach(async () => {
    // Accepts connections and reads requests but never answers.
    hung = createServer(() => undefined);
    await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
    const { port } = hung.address() as AddressInfo;
    hungConfig = new KubeConfig();
    hungConfig.loadFromOptions({
      clusters: [{ name: 'hung', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
      users: [{ name: 'u', token: 't' }],
      contexts: [{ name: 'hung', cluster: 'hung', user: 'u' }],
      currentContext: 'hung',
    });
  });
  afterEach(async () => {
    hung.closeAllConnections();
    await new Promise<void>((resolve) => hung.close(() => resolve()));
  });

  it.each([
    { name: 'a hung server gives a TransientError at the per-call timeout', timeoutMs: 300, deadlineInMs: undefined, expectMs: 300 },
    { name: 'the invocation deadline shortens the timeout', timeoutMs: 5000, deadlineInMs: 200, expectMs: 200 },
  ])('$name', async ({ timeoutMs, deadlineInMs, expectMs }) => {
    const clock = new RealClock();
    // One attempt: this is about a single call's timeout (repeats are tested in kube-retry.test.ts).
    const base = KubeClient.fromKubeConfig(hungConfig, { timeoutMs, clock, retry: NO_RETRY });
    const client = deadlineInMs === undefined ? base : base.withDeadline(clock.nowMs() + deadlineInMs);
    const started = performance.now();
    const err = await client.listOwned('demo', 'Pod', OWNED).catch((e: unknown) => e);
    const elapsedMs = performance.now() - started;
    expect(err).toBeInstanceOf(TransientError);
    expect((err as Error).message).toMatch(/timed out after \d+ ms/);
    expect(elapsedMs).toBeGreaterThanOrEqual(expectMs - 20);
    expect(elapsedMs).toBeLessThan(expectMs + 250);
  });

  it('a call past the deadline is not attempted', async () => {
    const clock = new RealClock();
    const client = KubeClient.fromKubeConfig(s.kubeConfig, { clock }).withDeadline(clock.nowMs() - 1);
    const before = requests();
    await expect(client.listOwned('demo', 'Pod', OWNED)).rejects.toBeInstanceOf(TransientError);
    expect(requests()).toBe(before);
  });

  it('a refused connection is a TransientError', async () => {
    const { port } = hung.address() as AddressInfo;
    hung.closeAllConnections();
    await new Promise<void>((resolve) => hung.close(() => resolve()));
    const client = KubeClient.fromKubeConfig(hungConfig, { timeoutMs: 2000 });
    const err = await client.listOwned('demo', 'Pod', OWNED).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransientError);
    expect((err as Error).message).toContain('ECONNREFUSED');
    hung = createServer(() => undefined);
    await new Promise<void>((resolve) => hung.listen(port, '127.0.0.1', resolve));
  });
});

describe("KubeClient: TiDB Operator's controller manager", () => {
  it('lists Deployments by label in every namespace or one, and reads a Lease by name (undefined when there is none)', async () => {
    // Prepare
    const labels = { 'app.kubernetes.io/component': 'controller-manager', 'app.kubernetes.io/name': 'tidb-operator' };
    s.store.create('Namespace', { metadata: { name: 'tidb-admin' } });
    for (const ns of ['tidb-admin', 'demo']) s.store.create('Deployment', { ...fixture('Deployment', 'tidb-controller-manager', labels), metadata: { name: 'tidb-controller-manager', namespace: ns, labels } });
    s.store.create('Deployment', fixture('Deployment', 'basic-discovery', OWNED));
    s.store.create('Lease', { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'tidb-controller-manager', namespace: 'tidb-admin' }, spec: { holderIdentity: 'p', leaseDurationSeconds: 15 } });
    const selector = 'app.kubernetes.io/component=controller-manager,app.kubernetes.io/name=tidb-operator';

    // Act
    const everywhere = await kube.listDeployments(undefined, selector);
    const here = await kube.listDeployments('demo', selector);
    const lease = await kube.getLease('tidb-admin', 'tidb-controller-manager');
    const none = await kube.getLease('demo', 'tidb-controller-manager');

    // Assess
    expect(everywhere.items.map((d) => `${d.metadata.namespace}/${d.metadata.name}`).sort()).toEqual(['demo/tidb-controller-manager', 'tidb-admin/tidb-controller-manager']);
    expect(here.items.map((d) => d.metadata.namespace)).toEqual(['demo']);
    expect(lease?.spec).toEqual({ holderIdentity: 'p', leaseDurationSeconds: 15 });
    expect(none).toBeUndefined();
  });

  it('sends the User-Agent the API server records as its field manager, tidb-reconciler', async () => {
    // Prepare
    const agents: string[] = [];
    const echo = createServer((req, res) => {
      agents.push(req.headers['user-agent'] ?? '');
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: 'not found' }));
    });
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    try {
      const config = new KubeConfig();
      config.loadFromString(kubeconfigYaml(`http://127.0.0.1:${(echo.address() as AddressInfo).port}`, 't'));
      // Act
      await KubeClient.fromKubeConfig(config, { timeoutMs: 2000 }).getLease('tidb-admin', 'tidb-controller-manager');
    } finally {
      echo.closeAllConnections();
      await new Promise<void>((resolve) => echo.close(() => resolve()));
    }
    // Assess
    expect(agents).toEqual(['tidb-reconciler']);
  });
});
