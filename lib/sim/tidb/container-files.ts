/**
 * The files a simulated process finds in its container, and the TLS setup it reads from them. A
 * path resolves through the container's volume mounts (the longest mount path that holds it) to
 * the ConfigMap or Secret behind the volume, key by key (or by `items`), as the kubelet projects
 * them. Processes use it for the certificate files their `[security]` config names: a configured
 * file that is not there makes the real server exit at start, so it makes the simulated one exit.
 */
import type { KubeObject } from '../object.js';
import type { ObjectStore } from '../store.js';
import type { PodInfo } from './pod-info.js';

type Mount = { name: string; mountPath: string };
type KeyedSource = { name?: string; secretName?: string; items?: { key: string; path: string }[] };
type Volume = { name: string; configMap?: KeyedSource; secret?: KeyedSource };

/** The text of the file at `path` in the container, or undefined when no mounted volume has it. */
export function readContainerFile(store: ObjectStore, pod: KubeObject, info: PodInfo, path: string): string | undefined {
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

/** Whether a server listens with TLS, or why it exits at start. */
export type ServingTls = { readonly tls: boolean; readonly problem?: string };

/** The certificate files a server's config names (empty string: not set), or why its config cannot be read. */
export type TlsPaths = { readonly ca: string; readonly cert: string; readonly key: string } | { readonly problem: string };

/**
 * The TLS a server sets up from its configured `paths`: none of them set ⇒ plain; all three ⇒ TLS,
 * every named file present in the container. A partial set is refused with TiKV's message (TiDB
 * and Pump would quietly serve plain without a CA; the simulator refuses it for every server, so
 * half-wired TLS never passes unnoticed). A config that cannot be read is a problem too.
 */
export function readServingTls(store: ObjectStore, pod: KubeObject | undefined, info: PodInfo, paths: TlsPaths): ServingTls {
  if ('problem' in paths) return { tls: false, problem: paths.problem };
  const named = [paths.ca, paths.cert, paths.key].filter((p) => p !== '');
  if (named.length === 0) return { tls: false };
  if (paths.ca === '' || paths.cert === '' || paths.key === '') return { tls: paths.ca !== '', problem: 'ca, cert and private key should be all configured' };
  // A pod gone before its process starts has no files at all.
  const absent = pod === undefined ? named[0] : named.find((p) => readContainerFile(store, pod, info, p) === undefined);
  if (absent !== undefined) return { tls: true, problem: `open ${absent}: no such file or directory` };
  return { tls: true };
}

/** A string value at a dotted `path` of a parsed TOML config, or '' when unset. */
export function configString(info: PodInfo, path: string): string {
  let node: unknown = 'ok' in info.config ? info.config.ok : {};
  for (const key of path.split('.')) node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key] : undefined;
  return typeof node === 'string' ? node : '';
}
