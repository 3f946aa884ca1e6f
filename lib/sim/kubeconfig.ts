/**
 * A kubeconfig for the simulated API server, as `sim serve --kubeconfig FILE` writes it, so kubectl
 * and client libraries reach the simulator without any other setup.
 */
import { writeFileSync } from 'node:fs';
import { stringify } from 'yaml';

/**
 * The kubeconfig document for a server URL. The simulator serves plain HTTP on loopback, over which
 * kubectl sends no bearer token, so the user entry carries a token only when one is given.
 */
export function simKubeconfig(serverUrl: string, token?: string, namespace = 'default'): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Config',
    // client-node refuses a plain-http server unless TLS verification is explicitly off.
    clusters: [{ name: 'tidb-sim', cluster: { server: serverUrl, 'insecure-skip-tls-verify': serverUrl.startsWith('http://') } }],
    users: [{ name: 'tidb-sim-admin', user: token ? { token } : {} }],
    contexts: [{ name: 'tidb-sim', context: { cluster: 'tidb-sim', user: 'tidb-sim-admin', namespace } }],
    'current-context': 'tidb-sim',
    preferences: {},
  };
}

/** Writes the kubeconfig to `file` (mode 0600, as kubeconfigs may hold credentials). */
export function writeSimKubeconfig(file: string, serverUrl: string, token?: string): void {
  writeFileSync(file, stringify(simKubeconfig(serverUrl, token)), { mode: 0o600 });
}
