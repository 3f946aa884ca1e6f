/**
 * Real certificates for a TidbCluster's `tlsCluster`, as TiDB Operator's "Enable TLS between
 * components" guide has a user make them (docs.pingcap.com/tidb-in-kubernetes, cfssl there, openssl
 * here): one CA; per component a server certificate whose SANs are the component's service and
 * peer names (`<tc>-pd`, `<tc>-pd.<ns>.svc`, `*.<tc>-pd-peer.<ns>.svc`, … and 127.0.0.1), usable as
 * server and client (the components dial each other with it); and the client certificate
 * (`<tc>-cluster-client-secret`). Made with `openssl` (P-256, valid one day).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A certificate and its key, PEM. */
export type Pem = { readonly cert: string; readonly key: string };

/** A cluster's CA and the certificates the TLS Secrets hold. */
export type ClusterPki = { readonly ca: Pem; readonly servers: Readonly<Record<'pd' | 'tikv' | 'tidb', Pem>>; readonly client: Pem };

const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/** The SANs TiDB Operator's guide gives a component's server certificate. */
export function componentSans(tc: string, ns: string, component: string): string[] {
  const names = [`${tc}-${component}`, `${tc}-${component}-peer`].flatMap((n) => [n, `${n}.${ns}`, `${n}.${ns}.svc`]);
  const peers = [`*.${tc}-${component}-peer`, `*.${tc}-${component}-peer.${ns}`, `*.${tc}-${component}-peer.${ns}.svc`];
  return [...names, ...peers].map((n) => `DNS:${n}`).concat('IP:127.0.0.1');
}

/** Runs `openssl` in a temp dir holding `files`, returns the files named in `read`; the dir is removed. */
function openssl(files: Record<string, string>, commands: readonly string[][], read: readonly string[]): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'cluster-pki-'));
  try {
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    for (const args of commands) execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
    return read.map((f) => readFileSync(join(dir, f), 'utf8'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A fresh CA (CN `cn`), and certificates it issues with the given SANs (none: a client certificate). */
export function makeCa(cn: string): { ca: Pem; issue(name: string, sans?: readonly string[]): Pem } {
  const [cert = '', key = ''] = openssl({}, [['req', '-x509', ...EC, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '1', '-subj', `/CN=${cn}`]], ['ca.crt', 'ca.key']);
  const ca = { cert, key };
  return {
    ca,
    issue(name, sans) {
      const usage = sans === undefined ? 'extendedKeyUsage=clientAuth' : `extendedKeyUsage=serverAuth,clientAuth\nsubjectAltName=${sans.join(',')}`;
      const ext = `basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\n${usage}\n`;
      const commands = [
        ['req', ...EC, '-keyout', 'leaf.key', '-out', 'leaf.csr', '-subj', `/CN=${name}`],
        ['x509', '-req', '-in', 'leaf.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'leaf.crt', '-days', '1', '-extfile', 'leaf.ext'],
      ];
      const [leafCert = '', leafKey = ''] = openssl({ 'ca.crt': ca.cert, 'ca.key': ca.key, 'leaf.ext': ext }, commands, ['leaf.crt', 'leaf.key']);
      return { cert: leafCert, key: leafKey };
    },
  };
}

/** The CA and certificates of TidbCluster `tc` in `ns` (see the module comment). */
export function makeClusterPki(ns: string, tc: string): ClusterPki {
  const authority = makeCa(`${tc} TiDB CA`);
  const server = (component: 'pd' | 'tikv' | 'tidb'): Pem => authority.issue(`${tc}-${component}`, componentSans(tc, ns, component));
  return { ca: authority.ca, servers: { pd: server('pd'), tikv: server('tikv'), tidb: server('tidb') }, client: authority.issue('TiDB') };
}

/** The Secrets (YAML, for `kubectl apply -f -`) the guide creates: `<tc>-<component>-cluster-secret` and `<tc>-cluster-client-secret`. */
export function clusterTlsSecrets(ns: string, tc: string, pki: ClusterPki): string {
  const b64 = (s: string): string => Buffer.from(s).toString('base64');
  const secret = (name: string, pem: Pem): string =>
    `apiVersion: v1\nkind: Secret\nmetadata: {name: ${name}, namespace: ${ns}}\ntype: kubernetes.io/tls\ndata: {ca.crt: ${b64(pki.ca.cert)}, tls.crt: ${b64(pem.cert)}, tls.key: ${b64(pem.key)}}\n`;
  const servers = (['pd', 'tikv', 'tidb'] as const).map((c) => secret(`${tc}-${c}-cluster-secret`, pki.servers[c]));
  return [...servers, secret(`${tc}-cluster-client-secret`, pki.client)].join('---\n');
}
