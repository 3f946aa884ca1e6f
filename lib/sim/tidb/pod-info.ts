/**
 * What a simulated process reads about itself, as the real one reads its environment: its pod name
 * and namespace, its cluster (the `app.kubernetes.io/instance` label), its container's image tag,
 * its TOML config from the mounted ConfigMap, or the one its init container renders into a shared
 * volume (invalid TOML ⇒ the process exits), and the identity of its data directory — the uid of
 * the PVC mounted there, so data survives a pod restart and a fresh PVC is a fresh member or store.
 * Without a PVC the data lives and dies with the pod.
 */
import { parse as parseToml } from 'smol-toml';
import type { KubeObject } from '../object.js';
import type { ObjectStore } from '../store.js';
import { imageRepository, imageTag, reportedVersion } from './version.js';

/** The components the simulator runs. */
export type Component = 'pd' | 'tikv' | 'tiflash' | 'tidb' | 'ticdc' | 'pump' | 'tiproxy' | 'discovery';

type Container = { name?: string; image?: string; command?: string[]; args?: string[]; env?: { name: string; value?: string }[]; volumeMounts?: { name: string; mountPath: string }[]; readinessProbe?: unknown; ports?: { name?: string; containerPort: number }[] };
type Volume = { name: string; persistentVolumeClaim?: { claimName: string }; configMap?: { name: string; optional?: boolean } };

/** Everything a process knows about its pod at start. */
export type PodInfo = {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly cluster: string;
  readonly component: Component;
  readonly container: Container;
  readonly image: string;
  readonly tag: string;
  /** The version the component reports (`v7.5.0`). */
  readonly version: string;
  readonly nodeName: string;
  /** The headless service the pod's DNS name lives under (`<tc>-pd-peer`). */
  readonly subdomain: string;
  /** The data directory's identity: the PVC uid, or the pod uid when no claim backs it. */
  readonly dataUid: string;
  /** The data directory's PVC name, when a claim backs it. */
  readonly claimName: string | undefined;
  /** The parsed TOML config, or why the process cannot start. */
  readonly config: { ok: Record<string, unknown> } | { error: string };
  /** The `startup-script` of the mounted ConfigMap (how the process is started), when there is one. */
  readonly startScript: string | undefined;
  readonly env: Readonly<Record<string, string>>;
  /** The PVC's requested size in bytes (TiKV's capacity), or 100 GiB. */
  readonly capacityBytes: number;
};

const DATA_MOUNTS: Record<Component, { paths: string[]; volumes: string[] }> = {
  pd: { paths: ['/var/lib/pd'], volumes: ['pd'] },
  tikv: { paths: ['/var/lib/tikv'], volumes: ['tikv'] },
  tiflash: { paths: ['/data0'], volumes: ['data0'] },
  pump: { paths: ['/data'], volumes: ['data'] },
  ticdc: { paths: [], volumes: [] },
  tiproxy: { paths: [], volumes: [] },
  tidb: { paths: [], volumes: [] },
  discovery: { paths: [], volumes: [] },
};

const CONFIG_KEYS: Record<Component, string[]> = {
  pd: ['config-file'],
  tikv: ['config-file'],
  tiflash: ['config_templ.toml'],
  tidb: ['config-file'],
  ticdc: ['config-file'],
  tiproxy: ['config-file'],
  pump: ['pump-config'],
  discovery: [],
};

/**
 * Which component an image runs: TiDB Operator's discovery is the operator image with the
 * `tidb-discovery` command; Pump runs from the tidb-binlog image. Undefined for anything else.
 */
export function componentOf(container: Container): Component | undefined {
  const repo = imageRepository(container.image ?? '').split('/').pop() ?? '';
  const command = [...(container.command ?? []), ...(container.args ?? [])].join(' ');
  // The program itself, not a flag naming it (the controller manager's `-tidb-discovery-image=…`).
  const runsDiscovery = command.split(/\s+/).some((w) => w === 'tidb-discovery' || w.endsWith('/tidb-discovery'));
  if (repo === 'tidb-operator') return runsDiscovery ? 'discovery' : undefined;
  if (repo === 'tidb-binlog') return command.includes('drainer') ? undefined : 'pump';
  const known: Record<string, Component> = { pd: 'pd', tikv: 'tikv', tiflash: 'tiflash', tidb: 'tidb', ticdc: 'ticdc', tiproxy: 'tiproxy' };
  return known[repo];
}

/** The container of `pod` named `name`. */
export function containerOf(pod: KubeObject, name: string): Container | undefined {
  return ((pod.spec?.containers ?? []) as Container[]).find((c) => c.name === name);
}

/** Reads the pod as its process would; undefined when the container runs no simulated component. */
export function readPodInfo(store: ObjectStore, pod: KubeObject, containerName: string): PodInfo | undefined {
  const container = containerOf(pod, containerName);
  const component = container ? componentOf(container) : undefined;
  if (!container || !component) return undefined;
  const namespace = pod.metadata.namespace ?? 'default';
  const name = pod.metadata.name ?? '';
  const env = Object.fromEntries((container.env ?? []).filter((e) => e.value !== undefined).map((e) => [e.name, e.value ?? '']));
  const cluster = pod.metadata.labels?.['app.kubernetes.io/instance'] ?? env.TC_NAME ?? env.CLUSTER_NAME ?? name.replace(/-[a-z]+-\d+$/, '');
  const tag = imageTag(container.image ?? '');
  const data = dataVolume(store, pod, container, component);
  return {
    namespace,
    name,
    uid: pod.metadata.uid ?? '',
    cluster,
    component,
    container,
    image: container.image ?? '',
    tag,
    version: reportedVersion(tag),
    nodeName: pod.spec?.nodeName ?? '',
    subdomain: pod.spec?.subdomain ?? `${cluster}-${component === 'pump' ? 'pump' : `${component}-peer`}`,
    dataUid: data.uid,
    claimName: data.claimName,
    config: readConfig(store, namespace, pod, container, component),
    startScript: readStartScript(store, namespace, pod, container),
    env,
    capacityBytes: data.bytes,
  };
}

function dataVolume(store: ObjectStore, pod: KubeObject, container: Container, component: Component): { uid: string; claimName?: string; bytes: number } {
  const want = DATA_MOUNTS[component];
  const mount = (container.volumeMounts ?? []).find((m) => want.paths.includes(m.mountPath)) ?? (container.volumeMounts ?? []).find((m) => want.volumes.includes(m.name));
  const volume = ((pod.spec?.volumes ?? []) as Volume[]).find((v) => v.name === mount?.name);
  const claimName = volume?.persistentVolumeClaim?.claimName;
  const claim = claimName ? store.get('PersistentVolumeClaim', pod.metadata.namespace, claimName) : undefined;
  if (!claim) return { uid: `pod:${pod.metadata.uid ?? ''}`, bytes: 100 * 2 ** 30 };
  return { uid: dataUidOfClaim(store, claim), claimName, bytes: quantityBytes(claim.spec?.resources?.requests?.storage) };
}

/**
 * Where a claim's data lives: its bound volume's uid (a retained volume bound to a new claim brings
 * its data along), or the claim's own uid while it has no volume.
 */
export function dataUidOfClaim(store: ObjectStore, claim: KubeObject): string {
  const pv = typeof claim.spec?.volumeName === 'string' ? store.get('PersistentVolume', undefined, claim.spec.volumeName) : undefined;
  return pv?.metadata.uid ?? claim.metadata.uid ?? '';
}

/** `10Gi` → bytes (binary and decimal suffixes); 100 GiB when absent or unreadable. */
function quantityBytes(q: unknown): number {
  const match = /^(\d+(?:\.\d+)?)([KMGTP]i?)?$/.exec(String(q ?? ''));
  if (!match) return 100 * 2 ** 30;
  const unit = match[2] ?? '';
  const powers: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, K: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, '': 1 };
  return Number(match[1]) * (powers[unit] ?? 1);
}

/** The `startup-script` key of a ConfigMap volume the container mounts (undefined when none has one). */
function readStartScript(store: ObjectStore, namespace: string, pod: KubeObject, container: Container): string | undefined {
  const mounted = new Set((container.volumeMounts ?? []).map((m) => m.name));
  for (const v of (pod.spec?.volumes ?? []) as Volume[]) {
    if (!v.configMap || !mounted.has(v.name)) continue;
    const script = (store.get('ConfigMap', namespace, v.configMap.name ?? '')?.data as Record<string, unknown> | undefined)?.['startup-script'];
    if (typeof script === 'string') return script;
  }
  return undefined;
}

/**
 * The ConfigMap volumes whose files reach the container: those it mounts, then those an init
 * container mounts next to a volume it shares with the container — the init container renders them
 * there, as TiFlash's renders `/etc/tiflash/config_templ.toml` into `/data0/config.toml`.
 */
function configVolumes(pod: KubeObject, container: Container): Volume[] {
  const mounted = new Set((container.volumeMounts ?? []).map((m) => m.name));
  const rendered = new Set<string>();
  for (const init of (pod.spec?.initContainers ?? []) as Container[]) {
    const names = (init.volumeMounts ?? []).map((m) => m.name);
    if (names.some((n) => mounted.has(n))) for (const n of names) rendered.add(n);
  }
  const volumes = ((pod.spec?.volumes ?? []) as Volume[]).filter((v) => v.configMap !== undefined);
  return [...volumes.filter((v) => mounted.has(v.name)), ...volumes.filter((v) => !mounted.has(v.name) && rendered.has(v.name))];
}

/** The component's TOML from a ConfigMap volume whose files reach the container (`configVolumes`). */
function readConfig(store: ObjectStore, namespace: string, pod: KubeObject, container: Container, component: Component): PodInfo['config'] {
  for (const v of configVolumes(pod, container)) {
    const cm = store.get('ConfigMap', namespace, v.configMap?.name ?? '');
    if (!cm) {
      if (v.configMap?.optional) continue;
      return { error: `configmap "${v.configMap?.name ?? ''}" not found` };
    }
    const data = (cm.data ?? {}) as Record<string, unknown>;
    const key = CONFIG_KEYS[component].find((k) => typeof data[k] === 'string');
    if (key === undefined) continue;
    try {
      return { ok: parseToml(String(data[key])) as Record<string, unknown> };
    } catch (err) {
      return { error: `invalid configuration file: ${(err as Error).message.split('\n')[0] ?? ''}` };
    }
  }
  return { ok: {} };
}
