/**
 * PD's TLS setup as pd-server finds it at start: the scheme of the URLs its start script passes
 * (`--client-urls=https://…` under cluster TLS), and the `[security]` files of its config, which
 * must exist in the container. Files are resolved through the container's volume mounts to the
 * ConfigMap or Secret behind them, key by key (or by `items`), as the kubelet projects them. What a
 * real pd-server refuses, this refuses, with the error it prints: https URLs without a cert and
 * key (etcd's check), or a configured file that is not there.
 */
import type { KubeObject } from '../object.js';
import type { ObjectStore } from '../store.js';
import type { PodInfo } from './pod-info.js';

/** The scheme PD serves, or why it exits at start. */
export type PdTls = { readonly scheme: 'http' | 'https'; readonly problem?: string };

type Mount = { name: string; mountPath: string };
type KeyedSource = { name?: string; secretName?: string; items?: { key: string; path: string }[] };
type Volume = { name: string; configMap?: KeyedSource; secret?: KeyedSource };

/** Reads the TLS setup of the PD container of `pod` (see the module comment). */
export function readPdTls(store: ObjectStore, pod: KubeObject, info: PodInfo): PdTls {
  const files = (path: string): string | undefined => readFile(store, pod, info, path);
  const scriptPath = [...(info.container.command ?? []), ...(info.container.args ?? [])].find((a) => a.endsWith('.sh'));
  const script = scriptPath === undefined ? undefined : files(scriptPath);
  const scheme = /--client-urls=https:\/\//.test(script ?? '') ? 'https' : 'http';
  const security = 'ok' in info.config ? (info.config.ok['security'] as Record<string, unknown> | undefined) : undefined;
  const path = (key: string): string => (typeof security?.[key] === 'string' ? String(security[key]) : '');
  const [ca, cert, key] = [path('cacert-path'), path('cert-path'), path('key-path')];
  if (scheme === 'https' && (cert === '' || key === '')) {
    return { scheme, problem: 'TLS key/cert (--cert-file, --key-file) must be provided for client url https://0.0.0.0:2379 with HTTPS scheme' };
  }
  const absent = [ca, cert, key].find((p) => p !== '' && files(p) === undefined);
  if (absent !== undefined) return { scheme, problem: `open ${absent}: no such file or directory` };
  return { scheme };
}

/** The text of the file at `path` in the container, or undefined when no mounted volume has it. */
function readFile(store: ObjectStore, pod: KubeObject, info: PodInfo, path: string): string | undefined {
  const mounts = ((info.container.volumeMounts ?? []) as Mount[]).filter((m) => path.startsWith(`${m.mountPath.replace(/\/$/, '')}/`));
  const mount = mounts.sort((a, b) => b.mountPath.length - a.mountPath.length)[0];
  if (!mount) return undefined;
  const relative = path.slice(mount.mountPath.replace(/\/$/, '').length + 1);
  const volume = ((pod.spec?.volumes ?? []) as Volume[]).find((v) => v.name === mount.name);
  const source = volume?.configMap ?? volume?.secret;
  if (!volume || !source) return undefined;
  const object = volume.configMap
    ? store.get('ConfigMap', info.namespace, source.name ?? '')
    : store.get('Secret', info.namespace, source.secretName ?? '');
  const data = (object?.['data'] ?? {}) as Record<string, string>;
  const key = source.items ? source.items.find((i) => i.path === relative)?.key : relative;
  const value = key === undefined ? undefined : data[key];
  if (value === undefined) return undefined;
  return volume.secret ? Buffer.from(value, 'base64').toString('utf8') : value;
}
