/**
 * The TLS a simulated server serves, read from the certificate files its config names: plain
 * without any, TLS with all three present in the container, and a refusal (the process exits)
 * for a partial set, a file no mount holds, or a Secret without the key.
 */
import { describe, expect, it } from '@jest/globals';

import { VirtualClock } from '../../lib/platform/clock.js';
import { ObjectStore } from '../../lib/sim/store.js';
import { type TlsPaths, readServingTls } from '../../lib/sim/tidb/container-files.js';
import type { PodInfo } from '../../lib/sim/tidb/pod-info.js';

const b64 = (text: string): string => Buffer.from(text).toString('base64');
const AT = (file: string): string => `/var/lib/tidb-tls/${file}`;
const ALL: TlsPaths = { ca: AT('ca.crt'), cert: AT('tls.crt'), key: AT('tls.key') };

function setup(secretData: Record<string, string>) {
  const store = new ObjectStore(new VirtualClock(Date.UTC(2026, 0, 1)));
  store.create('Namespace', { metadata: { name: 'demo' } });
  store.create('Secret', { metadata: { name: 'basic-tidb-cluster-secret', namespace: 'demo' }, data: secretData });
  const mounts = [{ name: 'tidb-tls', mountPath: '/var/lib/tidb-tls' }];
  const pod = store.create('Pod', {
    metadata: { name: 'basic-tidb-0', namespace: 'demo' },
    spec: { containers: [{ name: 'tidb', image: 'pingcap/tidb:v8.5.0', volumeMounts: mounts }], volumes: [{ name: 'tidb-tls', secret: { secretName: 'basic-tidb-cluster-secret' } }] },
  });
  const info = { namespace: 'demo', name: 'basic-tidb-0', container: { name: 'tidb', volumeMounts: mounts } } as unknown as PodInfo;
  return { store, pod, info };
}

const CERTS = { 'ca.crt': b64('ca'), 'tls.crt': b64('cert'), 'tls.key': b64('key') };

describe('readServingTls', () => {
  it.each<{ name: string; paths: TlsPaths; data?: Record<string, string>; want: { tls: boolean; problem?: string } }>([
    { name: 'no file named: plain', paths: { ca: '', cert: '', key: '' }, want: { tls: false } },
    { name: 'all three mounted: TLS', paths: ALL, want: { tls: true } },
    { name: 'a CA alone is refused', paths: { ca: AT('ca.crt'), cert: '', key: '' }, want: { tls: true, problem: 'ca, cert and private key should be all configured' } },
    { name: 'a certificate without a CA is refused', paths: { ca: '', cert: AT('tls.crt'), key: AT('tls.key') }, want: { tls: false, problem: 'ca, cert and private key should be all configured' } },
    { name: 'a Secret without tls.key: the file is not there', paths: ALL, data: { 'ca.crt': CERTS['ca.crt'], 'tls.crt': CERTS['tls.crt'] }, want: { tls: true, problem: 'open /var/lib/tidb-tls/tls.key: no such file or directory' } },
    { name: 'a path no volume is mounted at', paths: { ...ALL, ca: '/etc/ssl/ca.crt' }, want: { tls: true, problem: 'open /etc/ssl/ca.crt: no such file or directory' } },
    { name: 'a config that cannot be read', paths: { problem: 'invalid proxy configuration file' }, want: { tls: false, problem: 'invalid proxy configuration file' } },
  ])('$name', ({ paths, data, want }) => {
    // Prepare
    const { store, pod, info } = setup(data ?? CERTS);
    // Act
    const tls = readServingTls(store, pod, info, paths);
    // Assess
    expect(tls).toEqual(want);
  });
});
