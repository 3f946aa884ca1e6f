/**
 * A kubeconfig for the simulated API server, as `sim serve --kubeconfig FILE` writes it, so kubectl
 * and client libraries reach the simulator without any other setup.
 */
import { writeFileSync } from 'node:fs';
import { stringify } from 'yaml';

/**
 * The kubeconfig document for a server URL, with a bearer token when one is given and the CA to
 * trust (base64 PEM) for an https server. kubectl sends no bearer token over plain http, so a world
 * that authenticates serves https to kubectl (`sim serve`, `start`).
 */
export function simKubeconfig(serverUrl: string, token?: string, namespace = 'default', caData?: string): Record<string, unknown> {
  // client-node refuses a plain-http server unless TLS verification is explicitly off.
  const cluster = caData ? { server: serverUrl, 'certificate-authority-data': caData } : { server: serverUrl, 'insecure-skip-tls-verify': serverUrl.startsWith('http://') };
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'tidb-sim', cluster }],
    users: [{ name: 'tidb-sim-admin', user: token ? { token } : {} }],
    contexts: [{ name: 'tidb-sim', context: { cluster: 'tidb-sim', user: 'tidb-sim-admin', namespace } }],
    'current-context': 'tidb-sim',
    preferences: {},
  };
}

/** Writes the kubeconfig to `file` (mode 0600, as kubeconfigs may hold credentials). */
export function writeSimKubeconfig(file: string, serverUrl: string, token?: string, caData?: string): void {
  writeFileSync(file, stringify(simKubeconfig(serverUrl, token, 'default', caData)), { mode: 0o600 });
}
