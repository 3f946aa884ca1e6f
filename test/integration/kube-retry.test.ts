/**
 * In-call retries of the Kubernetes client against the simulated API server, whose request hook
 * fails requests as an overloaded server does: reads are repeated through 5xx and 429 (waiting the
 * server's Retry-After), guarded writes are repeated and end as the server decides, an unguarded
 * delete is never repeated, and a create whose answer was lost is recognised by its owner.
 */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { KubeClient } from '../../lib/kube/client.js';
import { isAlreadyExists } from '../../lib/kube/errors.js';
import type { KubeObject } from '../../lib/kube/port.js';
import { HandlerClock } from '../../lib/local/handler-clock.js';
import { ConflictError, TransientError } from '../../lib/platform/errors.js';
import { ApiError } from '../../lib/sim/api-error.js';
import { type BareServer, startBareServer } from '../support/api-server.js';

const OWNED = { 'app.kubernetes.io/instance': 'basic', 'app.kubernetes.io/managed-by': 'tidb-operator' };

const internalError = () => new ApiError(500, 'InternalError', 'Internal error occurred: etcdserver: request timed out');
const tooManyRequests = (seconds: number) => new ApiError(429, 'TooManyRequests', 'the server has received too many requests and has asked us to try again later', { retryAfterSeconds: seconds });

type Owner = { apiVersion: string; kind: string; name: string; uid: string; controller: boolean };

function configMap(name: string, owner: Owner): KubeObject {
  return { kind: 'ConfigMap', metadata: { name, namespace: 'demo', labels: OWNED, ownerReferences: [owner] }, data: { 'config-file': 'x' } };
}

let s: BareServer;
let kube: KubeClient;
let seen: string[];
let OWNER: Owner;
let OTHER: Owner;
beforeEach(async () => {
  s = await startBareServer();
  seen = [];
  // Owners that exist, so the garbage collector (running while the client waits) keeps what they own.
  const owner = (name: string): Owner => {
    const tc = s.store.create('TidbCluster', { kind: 'TidbCluster', metadata: { name, namespace: 'demo' }, spec: { pd: { replicas: 3 } } });
    return { apiVersion: 'pingcap.com/v1alpha1', kind: 'TidbCluster', name, uid: tc.metadata.uid ?? '', controller: true };
  };
  OWNER = owner('basic');
  OTHER = owner('other');
  // Sleeps move the server's virtual clock, so waits are measured, not slept.
  kube = KubeClient.fromKubeConfig(s.kubeConfig, { clock: new HandlerClock(s.clock, () => Promise.resolve()), random: () => 0.5 });
});
afterEach(async () => {
  await s.close();
});

/** Fails the first requests matching `method` with the errors given, in order; records every request. */
function failFirst(method: string, errors: (() => ApiError)[], before?: () => void): void {
  let failed = 0;
  s.server.requestHook = (m, path) => {
    seen.push(`${m} ${path}`);
    if (m !== method || failed >= errors.length) return undefined;
    before?.();
    return errors[failed++]?.();
  };
}

describe('reads are repeated through transient failures', () => {
  it('a LIST retried through three 500s succeeds', async () => {
    // Prepare
    s.store.create('ConfigMap', configMap('basic-pd', OWNER));
    failFirst('GET', [internalError, internalError, internalError]);

    // Act
    const list = await kube.listOwned('demo', 'ConfigMap', OWNED);

    // Assess
    expect(list.items.map((o) => o.metadata.name)).toEqual(['basic-pd']);
    expect(seen.filter((r) => r.startsWith('GET'))).toHaveLength(4);
  });

  it('a 429 carries Retry-After, and the client waits that long before repeating', async () => {
    // Prepare
    s.store.create('ConfigMap', configMap('basic-pd', OWNER));
    failFirst('GET', [() => tooManyRequests(2)]);
    const raw = await fetch(`${s.url}/api/v1/namespaces/demo/configmaps`, { headers: { Authorization: 'Bearer any' } });
    failFirst('GET', [() => tooManyRequests(2)]);
    const start = s.clock.nowMs();

    // Act
    await kube.listOwned('demo', 'ConfigMap', OWNED);

    // Assess
    expect(raw.status).toBe(429);
    expect(raw.headers.get('retry-after')).toBe('2');
    expect(s.clock.nowMs() - start).toBeGreaterThanOrEqual(2_000);
  });
});

describe('writes are repeated only when a repeat is safe', () => {
  it('a delete without preconditions is sent once', async () => {
    // Prepare
    s.store.create('ConfigMap', configMap('basic-pd', OWNER));
    failFirst('DELETE', [internalError]);

    // Act
    const outcome = kube.delete('ConfigMap', 'demo', 'basic-pd', {});

    // Assess
    await expect(outcome).rejects.toBeInstanceOf(TransientError);
    expect(seen.filter((r) => r.startsWith('DELETE'))).toHaveLength(1);
    expect(s.store.get('ConfigMap', 'demo', 'basic-pd')).toBeDefined();
  });

  it('a delete with a uid precondition is repeated and deletes', async () => {
    // Prepare
    const uid = s.store.create('ConfigMap', configMap('basic-pd', OWNER)).metadata.uid;
    failFirst('DELETE', [internalError, () => tooManyRequests(1)]);

    // Act
    await kube.delete('ConfigMap', 'demo', 'basic-pd', { uid });

    // Assess
    expect(seen.filter((r) => r.startsWith('DELETE'))).toHaveLength(3);
    expect(s.store.get('ConfigMap', 'demo', 'basic-pd')).toBeUndefined();
  });

  it('an update whose first answer was lost is not applied blindly again: the repeat is a 409', async () => {
    // Prepare
    const stored = s.store.create('ConfigMap', configMap('basic-pd', OWNER));
    const changed = { ...stored, kind: 'ConfigMap', data: { 'config-file': 'y' } };
    // The first PUT is applied, then the server fails to answer (an etcd timeout after the commit).
    failFirst('PUT', [internalError], () => s.store.update('ConfigMap', { ...stored, data: { 'config-file': 'y' } }));

    // Act
    const outcome = kube.update(changed);

    // Assess
    await expect(outcome).rejects.toBeInstanceOf(ConflictError);
    expect(seen.filter((r) => r.startsWith('PUT'))).toHaveLength(2);
  });

  it.each([
    { name: 'a create whose answer was lost returns the object it made (same controller owner)', theirs: false, recognised: true },
    { name: 'an object of another owner under that name stays a conflict', theirs: true, recognised: false },
  ])('$name', async ({ theirs, recognised }) => {
    const existingOwner = theirs ? OTHER : OWNER;
    // Prepare: the first POST is applied (with `existingOwner`), then its answer is lost.
    failFirst('POST', [internalError], () => s.store.create('ConfigMap', configMap('basic-pd', existingOwner)));

    // Act
    const outcome = kube.create(configMap('basic-pd', OWNER));

    // Assess
    if (recognised) await expect(outcome).resolves.toMatchObject({ kind: 'ConfigMap', metadata: { name: 'basic-pd', ownerReferences: [OWNER] } });
    else expect(isAlreadyExists(await outcome.catch((e: unknown) => e))).toBe(true);
    expect(seen.filter((r) => r.startsWith('POST'))).toHaveLength(2);
  });

  it('a create that finds its name taken on the first try is a conflict, not adopted', async () => {
    // Prepare
    s.store.create('ConfigMap', configMap('basic-pd', OWNER));
    failFirst('POST', []);

    // Act
    const err = await kube.create(configMap('basic-pd', OWNER)).catch((e: unknown) => e);

    // Assess
    expect(isAlreadyExists(err)).toBe(true);
    expect(seen.filter((r) => r.startsWith('GET'))).toHaveLength(0);
  });
});
