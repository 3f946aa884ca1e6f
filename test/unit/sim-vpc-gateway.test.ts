/**
 * The VPC gateway `sim serve` offers (lib/sim/vpc-gateway.ts), reached as `start --vpc-proxy` reaches
 * it (lib/local/vpc-proxy-network.ts): behind the tunnel a simulated component is as strict as the
 * wire — real TLS with its own certificate, mutual TLS enforced, an address without a running pod
 * refused, plain http to a TLS port answered as Go does.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ClientCertificate, type DialTarget } from '../../lib/components/network.js';
import { ClientCertificateRefusedError, ComponentUnreachableError } from '../../lib/components/reach-errors.js';
import { VpcProxyNetwork, parseVpcProxyUrl } from '../../lib/local/vpc-proxy-network.js';
import { SimComponentNetwork } from '../../lib/local/sim-network.js';
import { TerminalError, TransientError } from '../../lib/platform/errors.js';
import { VirtualClock } from '../../lib/platform/clock.js';
import { ProxyRegistry } from '../../lib/sim/proxy.js';
import { ObjectStore } from '../../lib/sim/store.js';
import { type VpcGateway, startVpcGateway } from '../../lib/sim/vpc-gateway.js';
import { type ClusterPki, componentSans, makeCa, makeClusterPki } from '../support/cluster-pki.js';

const NS = 'demo';
const PD_IP = '10.1.0.2';
const PLAIN_IP = '10.1.0.3';
const STOPPED_IP = '10.1.0.4';
const PLACEHOLDER_IP = '10.1.0.5';
const PD_NAME = 'basic-pd-0.basic-pd-peer.demo.svc';
const PLACEHOLDER = '-----BEGIN CERTIFICATE-----\nsimulated\n-----END CERTIFICATE-----\n';

let pki: ClusterPki;
let stranger: ClientCertificate;
let store: ObjectStore;
let proxy: ProxyRegistry;
let gateway: VpcGateway;
let network: VpcProxyNetwork;

function pod(name: string, ip: string, phase = 'Running'): void {
  store.create('Pod', { metadata: { name, namespace: NS }, spec: { containers: [{ name: 'c', image: 'pingcap/pd:v8.5.0' }] }, status: { phase, podIP: ip } });
}

beforeAll(async () => {
  pki = makeClusterPki(NS, 'basic');
  const other = makeCa('another CA');
  const strangerPem = other.issue('TiDB');
  stranger = new ClientCertificate(other.ca.cert, strangerPem.cert, strangerPem.key);
  store = new ObjectStore(new VirtualClock());
  store.create('Namespace', { metadata: { name: NS } });
  proxy = new ProxyRegistry(store, () => 0);
  const members = (): { status: number; body: string } => ({ status: 200, body: '{"members":[]}' });
  pod('basic-pd-0', PD_IP);
  proxy.register(NS, 'basic-pd-0', 2379, members, { tls: true, clientCa: pki.ca.cert, serverCert: { certPem: pki.servers.pd.cert, keyPem: pki.servers.pd.key } });
  pod('plain-pd-0', PLAIN_IP);
  proxy.register(NS, 'plain-pd-0', 2379, members);
  pod('stopped-pd-0', STOPPED_IP, 'Failed');
  proxy.register(NS, 'stopped-pd-0', 2379, members);
  pod('placeholder-pd-0', PLACEHOLDER_IP);
  proxy.register(NS, 'placeholder-pd-0', 2379, members, { tls: true, clientCa: PLACEHOLDER, serverCert: { certPem: PLACEHOLDER, keyPem: PLACEHOLDER } });
  gateway = await startVpcGateway(proxy);
  network = new VpcProxyNetwork(parseVpcProxyUrl(gateway.url));
});

afterAll(async () => {
  await gateway.close();
});

const REQUEST = { method: 'GET' as const, path: '/pd/api/v1/members' };
const target = (ip: string, scheme: 'http' | 'https' = 'https', serverName = PD_NAME): DialTarget => ({ ip, port: 2379, scheme, serverName });
const clusterClient = (): ClientCertificate => new ClientCertificate(pki.ca.cert, pki.client.cert, pki.client.key);

describe('the VPC gateway: a component behind it answers only what the wire would', () => {
  it('the cluster client certificate over real TLS reaches PD by pod IP', async () => {
    // Act
    const answer = await network.exchange(target(PD_IP), REQUEST, clusterClient(), 5000, 'read PD members');

    // Assert
    expect(answer).toEqual({ status: 200, text: '{"members":[]}' });
  });

  it('plain http to a plain port reaches the process', async () => {
    const answer = await network.exchange(target(PLAIN_IP, 'http', 'plain-pd.demo.svc'), REQUEST, undefined, 5000, 'read PD members');
    expect(answer.status).toBe(200);
  });

  it.each([
    { name: 'no client certificate: the handshake is refused (certificate required)', to: () => target(PD_IP), client: () => new ClientCertificate(pki.ca.cert, '', ''), error: ClientCertificateRefusedError, message: /CERTIFICATE_REQUIRED|certificate required/i },
    { name: 'a client certificate of another CA: refused (the connection closed after the handshake)', to: () => target(PD_IP), client: () => new ClientCertificate(pki.ca.cert, stranger.certPem, stranger.keyPem), error: ClientCertificateRefusedError, message: /closed the connection after verifying the client certificate/ },
    { name: 'a client that trusts another CA: the server certificate is not verified', to: () => target(PD_IP), client: () => stranger, error: ClientCertificateRefusedError, message: /self-signed certificate in certificate chain|unable to verify/i },
    { name: 'a name the server certificate does not carry: refused', to: () => target(PD_IP, 'https', 'basic-tikv-0.basic-tikv-peer.demo.svc'), client: clusterClient, error: ClientCertificateRefusedError, message: /ERR_TLS_CERT_ALTNAME_INVALID|altnames/i },
    { name: 'an address no pod has: the connection is refused', to: () => target('10.1.9.9'), client: clusterClient, error: ComponentUnreachableError, message: /connect: connection refused/ },
    { name: 'a pod that no longer runs: the connection is refused', to: () => target(STOPPED_IP, 'http'), client: () => undefined, error: ComponentUnreachableError, message: /connect: connection refused/ },
    { name: 'a port nothing listens on: the connection is refused', to: () => ({ ...target(PD_IP), port: 2380 }), client: clusterClient, error: ComponentUnreachableError, message: /10\.1\.0\.2:2380: connect: connection refused/ },
    { name: 'TLS to a plain port: the handshake fails', to: () => target(PLAIN_IP), client: clusterClient, error: TransientError, message: /plain-pd|basic-pd/ },
    { name: 'a TLS port with placeholder certificates: no real handshake is possible', to: () => target(PLACEHOLDER_IP), client: clusterClient, error: TransientError, message: /not real X\.509/ },
  ])('$name', async ({ to, client, error, message }) => {
    // Act
    const failure = await network.exchange(to(), REQUEST, client(), 5000, 'read PD members').then(
      () => undefined,
      (err: unknown) => err,
    );

    // Assert
    expect([failure, failure instanceof error]).toEqual([failure, true]);
    expect(String((failure as Error).message)).toMatch(message);
  });

  it('plain http to a TLS port gets Go\'s 400, as in the world\'s own network', async () => {
    // Act
    const through = await network.exchange(target(PD_IP, 'http'), REQUEST, undefined, 5000, 'read PD members');
    const inProcess = await new SimComponentNetwork(proxy, { inVpc: true }).exchange(target(PD_IP, 'http'), REQUEST, undefined, 5000, 'read PD members').catch((err: unknown) => err);

    // Assert
    expect(through).toEqual({ status: 400, text: 'Client sent an HTTP request to an HTTPS server.\n' });
    expect(inProcess).toEqual(through);
  });

  it('a process that stops after its tunnel opened resets the connection; a new one is refused', async () => {
    // Prepare
    pod('restarting-pd-0', '10.1.0.6');
    const unregister = proxy.register(NS, 'restarting-pd-0', 2379, () => ({ status: 200, body: '{}' }));
    const open = proxy.open('10.1.0.6', 2379);
    // Act
    unregister();
    const served = await open.serve({ method: 'GET', path: '/', query: new URLSearchParams(), body: '', headers: {} }).catch((err: unknown) => err);
    const again = await network.exchange(target('10.1.0.6', 'http'), REQUEST, undefined, 5000, 'read PD members').catch((err: unknown) => err);
    // Assess
    expect(String((served as Error).message)).toBe('read tcp 10.1.0.6:2379: connection reset by peer');
    expect(again).toBeInstanceOf(ComponentUnreachableError);
  });

  it('a CONNECT to a name rather than a pod address is refused with 400, naming why', async () => {
    const failure = await network.exchange({ ...target(PD_IP), ip: 'basic-pd.demo.svc' }, REQUEST, clusterClient(), 5000, 'read PD members').catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(TerminalError);
    expect(String((failure as Error).message)).toContain('must be <podIP>:<port>');
  });

  it('a tunnel the far end never answers ends with the call\'s timeout', async () => {
    // A raw TCP peer that accepts the CONNECT line and says nothing: the proxy itself hangs.
    const { createServer } = await import('node:net');
    const held: import('node:net').Socket[] = [];
    const silent = createServer((s) => void held.push(s));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as import('node:net').AddressInfo).port;
    const failure = await new VpcProxyNetwork(new URL(`http://127.0.0.1:${port}`)).exchange(target(PD_IP), REQUEST, clusterClient(), 300, 'read PD members').catch((err: unknown) => err);
    await new Promise<void>((resolve) => {
      silent.close(() => resolve());
      for (const s of held) s.destroy();
    });
    expect(failure).toBeInstanceOf(TransientError);
    expect(String((failure as Error).message)).toContain('timed out after 300 ms');
  });

  it.each([
    { name: 'not a URL', value: 'localhost:1234', message: /not a URL|must be http/ },
    { name: 'https', value: 'https://127.0.0.1:1234', message: /must be http:\/\/<host>:<port>/ },
    { name: 'no port', value: 'http://127.0.0.1', message: /must be http:\/\/<host>:<port>/ },
    { name: 'a path', value: 'http://127.0.0.1:1234/x', message: /must be http:\/\/<host>:<port>/ },
  ])('--vpc-proxy refuses $name', ({ value, message }) => {
    expect(() => parseVpcProxyUrl(value)).toThrow(message);
  });

  it('the SANs are the guide\'s', () => {
    expect(componentSans('basic', NS, 'pd')).toContain('DNS:*.basic-pd-peer.demo.svc');
  });
});
