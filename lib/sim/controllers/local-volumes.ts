/**
 * The local volume static provisioner (kubernetes-sigs/sig-storage-local-static-provisioner), as
 * TiDB Operator's runbooks deploy it before a cluster: a DaemonSet that finds the disks mounted
 * under a class's directory on its node and publishes each as a PersistentVolume of that class —
 * `spec.local.path`, the disk's capacity, `ReadWriteOnce`, the class's reclaim policy and a required
 * node affinity on the node's `kubernetes.io/hostname`, annotated
 * `pv.kubernetes.io/provisioned-by: local-volume-provisioner-<node>-<node uid>`. The PV controller
 * never deletes such a volume (no in-tree plugin deletes `local` volumes; the annotation names an
 * external deleter): a Released volume of a Delete class is cleaned by the provisioner on its node
 * (its files removed), its PersistentVolume deleted, and the disk published again as a new
 * Available volume of the same name. A Retain volume stays Released until an admin clears its
 * claimRef. The provisioner runs on the node: while the node is not Ready nothing is cleaned.
 *
 * Modelled: cleaning takes no time, and the disk is published again in the same pass (the real
 * discovery loop finds it on its next period).
 */
import type { KubeObject } from '../object.js';
import { isNodeReady } from '../nodes.js';
import type { NodesSpec } from '../nodes.js';
import { type LocalVolumesSim, type StorageClassSim, EKS_STORAGE_CLASSES } from '../storage-classes.js';
import type { ObjectStore, StoreEvent } from '../store.js';
import { type ErrorSink, LevelController } from './base.js';

/** The provisioned-by annotation's value prefix of the static provisioner's volumes. */
export const LOCAL_PROVISIONER_PREFIX = 'local-volume-provisioner-';

/** The node label the runbooks' `nodeLabelsForPV` copies onto each volume. */
const HOSTNAME_LABEL = 'kubernetes.io/hostname';

/** One class's static disks and the nodes that have them. */
export type LocalClassDisks = { readonly className: string; readonly reclaimPolicy: 'Delete' | 'Retain'; readonly disks: LocalVolumesSim; readonly nodes: readonly string[] };

/**
 * The classes of `classes` that have static local volumes, each with the nodes of `nodes` that
 * carry its disks: the nodes of its `pools` (node pools by name; with a node count, the one pool
 * `node`), or every node.
 */
export function localClassDisks(classes: Readonly<Record<string, StorageClassSim>>, nodes: NodesSpec): LocalClassDisks[] {
  const pools = typeof nodes === 'number' ? [{ name: 'node', count: nodes }] : nodes;
  const namesOf = (pool: { name: string; count: number }): string[] => Array.from({ length: pool.count }, (_, i) => `${pool.name}-${i}`);
  return Object.entries(classes).flatMap(([className, sc]) => {
    const disks = sc.localVolumes;
    if (!disks) return [];
    const chosen = disks.pools ? pools.filter((p) => disks.pools?.includes(p.name)) : pools;
    const reclaimPolicy = sc.reclaimPolicy ?? EKS_STORAGE_CLASSES[className]?.reclaimPolicy ?? 'Delete';
    return [{ className, reclaimPolicy, disks, nodes: chosen.flatMap(namesOf) }];
  });
}

/** The mount directory of a class's disks on a node (the provisioner's `storageClassMap` hostDir). */
export function localDiskPath(className: string, index: number): string {
  return `/mnt/disks/${className}/vol${index}`;
}

/**
 * The volume name the provisioner gives a disk: `local-pv-` and a 32-bit FNV-1a hash of the disk's
 * path, node and class, in hex (as its `generatePVName`), so the same disk always has the same name.
 */
export function localVolumeName(className: string, node: string, index: number): string {
  let hash = 0x811c9dc5;
  for (const ch of `${localDiskPath(className, index)}${node}${className}`) {
    hash ^= ch.charCodeAt(0);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return `local-pv-${hash.toString(16).padStart(8, '0')}`;
}

/** Whether `pv` is one of the static provisioner's local volumes. */
export function isStaticLocalVolume(pv: KubeObject): boolean {
  return Boolean(pv.spec?.local) && String(pv.metadata.annotations?.['pv.kubernetes.io/provisioned-by'] ?? '').startsWith(LOCAL_PROVISIONER_PREFIX);
}

/** The PersistentVolume of disk `index` of `c` on `node`. */
function localVolume(c: LocalClassDisks, node: KubeObject, index: number): KubeObject {
  const nodeName = node.metadata.name ?? '';
  return {
    metadata: {
      name: localVolumeName(c.className, nodeName, index),
      labels: { [HOSTNAME_LABEL]: nodeName },
      annotations: { 'pv.kubernetes.io/provisioned-by': `${LOCAL_PROVISIONER_PREFIX}${nodeName}-${node.metadata.uid ?? ''}` },
    },
    spec: {
      capacity: { storage: c.disks.capacity },
      accessModes: ['ReadWriteOnce'],
      persistentVolumeReclaimPolicy: c.reclaimPolicy,
      storageClassName: c.className,
      volumeMode: 'Filesystem',
      local: { path: localDiskPath(c.className, index) },
      nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: HOSTNAME_LABEL, operator: 'In', values: [nodeName] }] }] } },
    },
  };
}

/** Publishes and cleans the static local volumes of every class that has them. */
export class LocalVolumeProvisioner {
  private readonly loop: LevelController;

  constructor(
    private readonly store: ObjectStore,
    private readonly classes: readonly LocalClassDisks[],
    onError?: ErrorSink,
  ) {
    const spec = { name: 'local-volume-provisioner', keysFor: (ev: StoreEvent) => this.keysFor(ev), sync: (node: string) => this.syncNode(node), initialKeys: () => this.nodeNames() };
    this.loop = new LevelController(store, spec, onError);
  }

  /** Publishes every node's disks at once (the runbook deploys the provisioner before the cluster), then keeps them. */
  start(): void {
    for (const node of this.nodeNames()) this.syncNode(node);
    this.loop.start();
  }

  /** Stops watching. */
  stop(): void {
    this.loop.stop();
  }

  private nodeNames(): string[] {
    return [...new Set(this.classes.flatMap((c) => c.nodes))];
  }

  private keysFor(ev: StoreEvent): string[] {
    if (ev.kind === 'Node') return this.nodeNames().includes(ev.object.metadata.name ?? '') ? [ev.object.metadata.name ?? ''] : [];
    if (ev.kind !== 'PersistentVolume' || !isStaticLocalVolume(ev.object)) return [];
    return [String(ev.object.metadata.labels?.[HOSTNAME_LABEL] ?? '')];
  }

  /** The provisioner's pass on `nodeName`: publish missing disks, clean Released Delete volumes. Only on a Ready node. */
  private syncNode(nodeName: string): void {
    const node = this.store.get('Node', undefined, nodeName);
    if (!node || !isNodeReady(node)) return;
    for (const c of this.classes) {
      if (!c.nodes.includes(nodeName)) continue;
      for (let i = 0; i < c.disks.perNode; i++) {
        const name = localVolumeName(c.className, nodeName, i);
        const pv = this.store.get('PersistentVolume', undefined, name);
        if (pv && !this.shouldClean(pv)) continue;
        // As the deleter: the disk's files are removed, then its PersistentVolume, then discovery publishes it anew.
        if (pv) this.store.delete('PersistentVolume', undefined, name);
        this.store.create('PersistentVolume', localVolume(c, node, i));
      }
    }
  }

  private shouldClean(pv: KubeObject): boolean {
    return pv.status?.phase === 'Released' && pv.spec?.persistentVolumeReclaimPolicy === 'Delete' && !pv.metadata.deletionTimestamp;
  }
}
