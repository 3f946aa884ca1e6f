/**
 * Direct access as a function in the cluster's VPC does it, over Node's real network: names
 * resolved through the API server (a pod's `status.podIP`, a Service's ready Endpoints), then the
 * component reached at that address — over real mutual TLS when the cluster has it, the server
 * requiring a client certificate signed by the cluster CA (as PD does whenever a CA is set), the
 * certificate read from `<tc>-cluster-client-secret`. The component listens on loopback; the only
 * thing swapped is its port (a test cannot bind 2379), by an injected network.
 */
import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type Server, createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { ComponentCaller } from '../../lib/components/caller.js';
import { ClientCertificates } from '../../lib/components/client-certificates.js';
import type { ClientCertificate, ComponentNetwork, DialTarget } from '../../lib/components/network.js';
import { NodeComponentNetwork, classifyNetworkError } from '../../lib/components/node-network.js';
import { ClientCertificateRefusedError, ComponentUnreachableError } from '../../lib/components/reach-errors.js';
import type { ComponentRequest } from '../../lib/components/transport.js';
import { KubeHttp } from '../../lib/kube/http.js';
import { NotFoundError, TransientError } from '../../lib/platform/errors.js';
import { PdClient } from '../../lib/pd/client.js';
import { type BareServer, startBareServer } from '../support/api-server.js';

type Pki = { ca: string; cert: string; key: string; client: { cert: string; key: string }; stranger: { ca: string; cert: string; key: string } };

/** A CA, a PD server certificate for `*.basic-pd-peer.demo.svc` and `basic-pd.demo.svc`, a client certificate, and another CA's client. */
function makePki(): Pki {
  const dir = mkdtempSync(join(tmpdir(), 'mtls-'));
  const run = (...args: string[]): void => void execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  try {
    for (const ca of ['ca', 'other-ca']) run('req', '-x509', ...ec, '-keyout', `${ca}.key`, '-out', `${ca}.crt`, '-days', '1', '-subj', `/CN=${ca}`);
    writeFileSync(join(dir, 'server.ext'), 'subjectAltName=DNS:basic-pd.demo.svc,DNS:*.basic-pd-peer.demo.svc\n');
    const issue = (name: string, ca: string, ext?: string): void => {
      run('req', ...ec, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`);
      run('x509', '-req', '-in', `${name}.csr`, '-CA', `${ca}.crt`, '-CAkey', `${ca}.key`, '-CAcreateserial', '-out', `${name}.crt`, '-days', '1', ...(ext ? ['-extfile', ext] : []));
    };
    issue('server', 'ca', 'server.ext');
    issue('client', 'ca');
    issue('stranger', 'other-ca');
    const read = (f: string): string => readFileSync(join(dir, f), 'utf8');
    return { ca: read('ca.crt'), cert: read('server.crt'), key: read('server.key'), client: { cert: read('client.crt'), key: read('client.key') }, stranger: { ca: read('other-ca.crt'), cert: read('stranger.crt'), key: read('stranger.key') } };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Node's network with every connection sent to `port` on loopback (what the pod IP would be), except
 * to the `gone` IPs, which refuse as a deleted pod's address does.
 */
class LoopbackPort implements ComponentNetwork {
  readonly dialed: DialTarget[] = [];
  gone = new Set<string>();
  constructor(
    private readonly port: () => number,
    private readonly network = new NodeComponentNetwork(),
  ) {}
  exchange(target: DialTarget, req: ComponentRequest, client: ClientCertificate | undefined, timeoutMs: number, what: string) {
    this.dialed.push(target);
    if (this.gone.has(target.ip)) return this.network.exchange({ ...target, ip: '127.0.0.1', port: 1 }, req, client, timeoutMs, what);
    return this.network.exchange({ ...target, ip: '127.0.0.1', port: this.port() }, req, client, timeoutMs, what);
  }
}

const b64 = (text: string): string => Buffer.from(text).toString('base64');
const PD_LABELS = { 'app.kubernetes.io/instance': 'basic', 'app.kubernetes.io/component': 'pd' };

let pki: Pki;
let api: BareServer;
let component: Server;
let seen: string[];
beforeAll(() => {
  pki = makePki();
});

async function listen(server: Server): Promise<void> {
  component = server;
  await new Promise<void>((resolve) => component.listen(0, '127.0.0.1', resolve));
}
afterEach(async () => {
  component.closeAllConnections();
  await new Promise<void>((resolve) => component.close(() => resolve()));
  await api.close();
});

function pd(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse): void {
  seen.push(`${req.method} ${req.url}`);
  if (req.url === '/pd/api/v1/members') res.writeHead(200).end('{"members":[{"name":"pd-0","member_id":11120000000000000001}]}');
  else if (req.url === '/pd/api/v1/health') return; // never answers
  else res.writeHead(404).end('not found');
}

/** The API server with PD's pod, its Endpoints and (optionally) the client Secret, and a direct PD client. */
async function setUp(options: { scheme: 'http' | 'https'; secret?: { ca: string; cert: string; key: string }; ready?: boolean; ips?: string[] }) {
  seen = [];
  api = await startBareServer({});
  api.store.create('Pod', { metadata: { name: 'basic-pd-0', namespace: 'demo', labels: PD_LABELS }, spec: { containers: [{ name: 'pd', image: 'pingcap/pd:v8.5.0' }] } });
  const addresses = options.ready === false ? {} : { addresses: (options.ips ?? ['10.0.0.7']).map((ip) => ({ ip })) };
  api.store.create('Endpoints', { metadata: { name: 'basic-pd', namespace: 'demo' }, subsets: [{ ...addresses, ports: [{ name: 'client', port: 2379 }] }] });
  const s = options.secret;
  if (s) api.store.create('Secret', { metadata: { name: 'basic-cluster-client-secret', namespace: 'demo' }, data: { 'ca.crt': b64(s.ca), 'tls.crt': b64(s.cert), 'tls.key': b64(s.key) } });
  const network = new LoopbackPort(() => (component.address() as AddressInfo).port);
  const client = new PdClient(ComponentCaller.direct(api.kubeConfig, network, { timeoutMs: 500 }), { namespace: 'demo', tcName: 'basic', scheme: options.scheme });
  return { client, network };
}

describe('direct access over http (cluster TLS off)', () => {
  it('resolves basic-pd.demo.svc through its Endpoints and reads PD, ids exact', async () => {
    await listen(createHttpServer(pd));
    const { client, network } = await setUp({ scheme: 'http' });
    const { members } = await client.getMembers();
    expect(members[0]?.memberId).toBe('11120000000000000001');
    expect(seen).toEqual(['GET /pd/api/v1/members']);
    expect(network.dialed).toEqual([{ ip: '10.0.0.7', port: 2379, scheme: 'http', serverName: 'basic-pd.demo.svc' }]);
  });

  it.each([
    { name: 'an address that refuses (a deleted member still listed) is passed over for the next', gone: ['10.0.0.8'], ok: true },
    { name: 'every address refusing is unreachable', gone: ['10.0.0.7', '10.0.0.8'], ok: false },
  ])('$name', async ({ gone, ok }) => {
    await listen(createHttpServer(pd));
    const { client, network } = await setUp({ scheme: 'http', ips: ['10.0.0.7', '10.0.0.8'] });
    network.gone = new Set(gone);
    const call = client.getMembers();
    if (ok) expect((await call).members).toHaveLength(1);
    else await expect(call).rejects.toBeInstanceOf(ComponentUnreachableError);
    expect(new Set(network.dialed.map((d) => d.ip)).size).toBe(ok && network.dialed[0]?.ip === '10.0.0.7' ? 1 : 2);
  });

  it.each([
    { name: 'a 404 is NotFoundError', ready: true, act: (c: PdClient) => c.deleteStore('1'), type: NotFoundError },
    { name: 'no answer within the timeout is TransientError', ready: true, act: (c: PdClient) => c.getHealth(), type: TransientError },
    { name: 'a Service without ready endpoints is unreachable', ready: false, act: (c: PdClient) => c.getMembers(), type: ComponentUnreachableError },
  ])('$name', async ({ ready, act, type }) => {
    await listen(createHttpServer(pd));
    const { client } = await setUp({ scheme: 'http', ready });
    await expect(act(client)).rejects.toBeInstanceOf(type);
  });
});

describe('direct access over mutual TLS (cluster TLS on)', () => {
  // TLS 1.2, so the server's refusal is an alert inside the handshake, as a Go server's is (Node's
  // TLS 1.3 server drops the connection after the client's last flight without one).
  const mtlsPd = () => createHttpsServer({ ca: pki.ca, cert: pki.cert, key: pki.key, requestCert: true, rejectUnauthorized: true, maxVersion: 'TLSv1.2' }, pd) as unknown as Server;

  it('presents the cluster client certificate and verifies PD for its DNS name', async () => {
    await listen(mtlsPd());
    const { client } = await setUp({ scheme: 'https', secret: { ca: pki.ca, ...pki.client } });
    expect((await client.getMembers()).members).toHaveLength(1);
  });

  it('a certificate from another CA is refused by PD: the request never reaches it', async () => {
    await listen(mtlsPd());
    const { client } = await setUp({ scheme: 'https', secret: { ca: pki.ca, cert: pki.stranger.cert, key: pki.stranger.key } });
    // Node's TLS server drops the connection where a Go server (PD) sends an alert; see the classification table below.
    await expect(client.getMembers()).rejects.toThrow(TransientError);
    expect(seen).toEqual([]);
  });

  it('a PD certificate from a CA the client does not trust is refused by the client (terminal, no repeat)', async () => {
    await listen(mtlsPd());
    const { client } = await setUp({ scheme: 'https', secret: { ca: pki.stranger.ca, ...pki.client } });
    await expect(client.getMembers()).rejects.toBeInstanceOf(ClientCertificateRefusedError);
    expect(seen).toEqual([]);
  });

  it('a missing client Secret says which', async () => {
    await listen(mtlsPd());
    const { client } = await setUp({ scheme: 'https' });
    await expect(client.getMembers()).rejects.toThrow('Secret demo/basic-cluster-client-secret does not exist');
  });
});

describe('what a failed exchange is', () => {
  const target: DialTarget = { ip: '10.0.0.7', port: 2379, scheme: 'https', serverName: 'basic-pd.demo.svc' };
  const failure = (code: string, message: string): Error => Object.assign(new Error(message), { code });
  it.each([
    { name: 'a Go server’s alert for a missing certificate (TLS 1.3)', err: failure('ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED', 'tlsv13 alert certificate required'), type: ClientCertificateRefusedError },
    { name: 'a Go server’s alert for a certificate it does not accept', err: failure('ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE', 'sslv3 alert bad certificate'), type: ClientCertificateRefusedError },
    { name: 'a server certificate the client cannot verify', err: failure('UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'unable to verify the first certificate'), type: ClientCertificateRefusedError },
    { name: 'a server certificate for another name', err: failure('ERR_TLS_CERT_ALTNAME_INVALID', 'Hostname/IP does not match'), type: ClientCertificateRefusedError },
    { name: 'a refused connection', err: failure('ECONNREFUSED', 'connect ECONNREFUSED'), type: ComponentUnreachableError },
    { name: 'a reset connection', err: failure('ECONNRESET', 'socket hang up'), type: TransientError },
  ])('$name', ({ err, type }) => {
    const classified = classifyNetworkError(err, 'PD get members', target);
    expect(classified).toBeInstanceOf(type);
    expect(classified.message).toContain('basic-pd.demo.svc (10.0.0.7:2379)');
  });
});

describe('the client certificate cache', () => {
  it('holds at most its bound, expires, and never prints the key', async () => {
    await listen(createHttpServer(pd));
    await setUp({ scheme: 'http' });
    for (const tc of ['a', 'b', 'c']) api.store.create('Secret', { metadata: { name: `${tc}-cluster-client-secret`, namespace: 'demo' }, data: { 'ca.crt': b64(pki.ca), 'tls.crt': b64(pki.client.cert), 'tls.key': b64(pki.client.key) } });
    let now = 0;
    const cache = new ClientCertificates(new KubeHttp(api.kubeConfig), () => now, { ttlMs: 1000, maxEntries: 2 });
    const first = await cache.of('demo', 'a', 1000);
    await cache.of('demo', 'b', 1000);
    await cache.of('demo', 'c', 1000);
    expect(cache.size).toBe(2);
    expect(await cache.of('demo', 'c', 1000)).toBe(await cache.of('demo', 'c', 1000));
    now = 1000;
    expect(await cache.of('demo', 'a', 1000)).not.toBe(first);
    const printed = `${JSON.stringify({ first })} ${inspect(first)} ${String(first)}`;
    expect(printed).not.toContain('PRIVATE KEY');
    expect(printed).not.toContain('CERTIFICATE');
  });
});
