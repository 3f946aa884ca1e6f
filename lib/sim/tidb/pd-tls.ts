/**
 * PD's TLS setup as pd-server finds it at start: the scheme of the URLs its start script passes
 * (`--client-urls=https://…` under cluster TLS), and the `[security]` files of its config, which
 * must exist in the container (container-files.ts resolves them through its mounts). What a
 * real pd-server refuses, this refuses, with the error it prints: https URLs without a cert and
 * key (etcd's check), or a configured file that is not there.
 */
import type { KubeObject } from '../object.js';
import type { ServerCertificate } from '../proxy.js';
import type { ObjectStore } from '../store.js';
import { readContainerFile } from './container-files.js';
import type { PodInfo } from './pod-info.js';

/**
 * The scheme PD serves, or why it exits at start; `ca` is the PEM of `security.cacert-path` when set
 * (PD then requires client certificates signed by it, see ../mtls.ts), `cert` its own certificate
 * and key (`cert-path`, `key-path`).
 */
export type PdTls = { readonly scheme: 'http' | 'https'; readonly problem?: string; readonly ca?: string; readonly cert?: ServerCertificate };

/** Reads the TLS setup of the PD container of `pod` (see the module comment). */
export function readPdTls(store: ObjectStore, pod: KubeObject, info: PodInfo): PdTls {
  const files = (path: string): string | undefined => readContainerFile(store, pod, info, path);
  const scriptPath = [...(info.container.command ?? []), ...(info.container.args ?? [])].find((a) => a.endsWith('.sh'));
  const script = scriptPath === undefined ? undefined : files(scriptPath);
  // PD's `--client-urls`, a PD microservice's `--listen-addr`.
  const scheme = /--(?:client-urls|listen-addr)=https:\/\//.test(script ?? '') ? 'https' : 'http';
  const security = 'ok' in info.config ? (info.config.ok['security'] as Record<string, unknown> | undefined) : undefined;
  const path = (key: string): string => (typeof security?.[key] === 'string' ? String(security[key]) : '');
  const [ca, cert, key] = [path('cacert-path'), path('cert-path'), path('key-path')];
  if (scheme === 'https' && (cert === '' || key === '')) {
    return { scheme, problem: 'TLS key/cert (--cert-file, --key-file) must be provided for client url https://0.0.0.0:2379 with HTTPS scheme' };
  }
  const absent = [ca, cert, key].find((p) => p !== '' && files(p) === undefined);
  if (absent !== undefined) return { scheme, problem: `open ${absent}: no such file or directory` };
  const caPem = ca === '' ? undefined : files(ca);
  const [certPem, keyPem] = [cert === '' ? undefined : files(cert), key === '' ? undefined : files(key)];
  const pair = certPem !== undefined && keyPem !== undefined ? { cert: { certPem, keyPem } } : {};
  return { scheme, ...(caPem !== undefined ? { ca: caPem } : {}), ...pair };
}
