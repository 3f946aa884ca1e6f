/**
 * `KubeClient.copySecret` against the simulated API server: a TidbCluster's client certificate copied
 * into a TidbNGMonitoring's Secret with its keys renamed, written once (a repeat is no write), updated
 * under the read resourceVersion when the source changes, and a missing source refused by name.
 */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { KubeClient } from '../../lib/kube/client.js';
import type { SecretCopySpec } from '../../lib/kube/port.js';
import { NotFoundError } from '../../lib/platform/errors.js';
import { type BareServer, startBareServer } from '../support/api-server.js';

let s: BareServer;
let kube: KubeClient;
beforeEach(async () => {
  s = await startBareServer({ token: 'client-token' });
  kube = KubeClient.fromKubeConfig(s.kubeConfig, { timeoutMs: 5000 });
});
afterEach(async () => {
  await s.close();
});

const b64 = (text: string): string => Buffer.from(text).toString('base64');
const COPY: SecretCopySpec = {
  ref: { namespace: 'demo', name: 'basic-tc-client-tls' },
  metadata: { labels: { 'app.kubernetes.io/component': 'ng-monitoring' } },
  sources: [{ namespace: 'demo', name: 'basic-cluster-client-secret', keyPrefix: 'basic_demo_' }],
};

function source(ca: string): void {
  s.store.create('Secret', { metadata: { name: 'basic-cluster-client-secret', namespace: 'demo' }, type: 'kubernetes.io/tls', data: { 'ca.crt': b64(ca), 'tls.crt': b64('cert'), 'tls.key': b64('key') } });
}

describe('copySecret', () => {
  it('creates the copy with renamed keys; a repeat writes nothing', async () => {
    // Arrange
    source('ca-1');

    // Act
    await kube.copySecret(COPY);
    const first = s.store.get('Secret', 'demo', 'basic-tc-client-tls');
    await kube.copySecret(COPY);
    const second = s.store.get('Secret', 'demo', 'basic-tc-client-tls');

    // Assess
    expect(first?.['data']).toEqual({ 'basic_demo_ca.crt': b64('ca-1'), 'basic_demo_tls.crt': b64('cert'), 'basic_demo_tls.key': b64('key') });
    expect(first?.metadata.labels).toEqual({ 'app.kubernetes.io/component': 'ng-monitoring' });
    expect(second?.metadata.resourceVersion).toBe(first?.metadata.resourceVersion);
  });

  it('a renewed source certificate is copied again', async () => {
    // Arrange
    source('ca-1');
    await kube.copySecret(COPY);
    const live = s.store.get('Secret', 'demo', 'basic-cluster-client-secret');
    s.store.update('Secret', { ...live, metadata: { ...live?.metadata, name: 'basic-cluster-client-secret', namespace: 'demo' }, data: { ...(live?.['data'] as object), 'ca.crt': b64('ca-2') } });

    // Act
    await kube.copySecret(COPY);

    // Assess
    expect((s.store.get('Secret', 'demo', 'basic-tc-client-tls')?.['data'] as Record<string, string>)['basic_demo_ca.crt']).toBe(b64('ca-2'));
  });

  it('no sources makes an empty Secret (v1 makes one without TLS)', async () => {
    // Act
    await kube.copySecret({ ...COPY, sources: [] });

    // Assess
    expect(s.store.get('Secret', 'demo', 'basic-tc-client-tls')?.['data'] ?? {}).toEqual({});
  });

  it('a missing source is a NotFoundError naming it, and nothing is written', async () => {
    // Act
    const err = await kube.copySecret(COPY).catch((e: unknown) => e);

    // Assess
    expect(err).toBeInstanceOf(NotFoundError);
    expect(String((err as Error).message)).toContain('secret "basic-cluster-client-secret" not found');
    expect(s.store.get('Secret', 'demo', 'basic-tc-client-tls')).toBeUndefined();
  });
});
