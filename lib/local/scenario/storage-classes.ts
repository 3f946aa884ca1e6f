/**
 * `sim.storageClasses`: the StorageClasses a runbook creates before the cluster (TiDB Operator's
 * `local-storage` / `ssd-storage`: `kubernetes.io/no-provisioner`, WaitForFirstConsumer, static
 * local volumes from the local volume provisioner). Each is `{name, provisioner, volumeBindingMode,
 * reclaimPolicy, allowVolumeExpansion, localVolumes}`; the defaults are the API server's (Immediate, Delete) and, for the
 * provisioner, EBS CSI (a class without local volumes provisions as gp2 does). Every mistake names
 * its field.
 */
import { EBS_PROVISIONER, NO_PROVISIONER, type StorageClassSim } from '../../sim/storage-classes.js';
import { parseQuantity } from '../../sim/quantity.js';
import type { FieldPath } from './reader.js';
import { describeValue, expectMapping, FieldError, readBoolean, readInteger, readOneOf, readString, rejectUnknownFields, required } from './reader.js';
import type { NodePoolSetting, StorageClassSetting } from './types.js';

/** The fields a storage class accepts. */
export const STORAGE_CLASS_FIELDS = ['name', 'provisioner', 'volumeBindingMode', 'reclaimPolicy', 'allowVolumeExpansion', 'localVolumes'] as const;

/** The fields of a class's `localVolumes`. */
export const LOCAL_VOLUMES_FIELDS = ['perNode', 'capacity', 'pools'] as const;

/** The most local disks one node may have per class. */
export const MAX_DISKS_PER_NODE = 64;

// A StorageClass name: a DNS-1123 subdomain.
const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
// A provisioner name: a CSI driver name or a kubernetes.io/ plugin name.
const PROVISIONER = /^[A-Za-z0-9]([-A-Za-z0-9_./]*[A-Za-z0-9])?$/;

/** `sim.storageClasses` read against the world's node pools (undefined with a node count). */
export function readStorageClasses(value: unknown, path: FieldPath, pools: readonly NodePoolSetting[] | undefined): StorageClassSetting[] {
  if (!Array.isArray(value)) throw new FieldError(path, `expected a list of storage classes {name, provisioner, volumeBindingMode, reclaimPolicy, allowVolumeExpansion, localVolumes}, got ${describeValue(value)}`);
  const classes = value.map((raw, i) => readClass(raw, [...path, i], pools));
  classes.forEach((c, i) => {
    if (classes.findIndex((o) => o.name === c.name) !== i) throw new FieldError([...path, i, 'name'], `duplicate storage class "${c.name}"`);
  });
  return classes;
}

function readClass(raw: unknown, path: FieldPath, pools: readonly NodePoolSetting[] | undefined): StorageClassSetting {
  const map = expectMapping(raw, path, 'a storage class {name, provisioner, volumeBindingMode, reclaimPolicy, allowVolumeExpansion, localVolumes}');
  rejectUnknownFields(map, path, STORAGE_CLASS_FIELDS);
  const name = readString(required(map, 'name', path), [...path, 'name']);
  if (name.length > 253 || !SUBDOMAIN.test(name)) throw new FieldError([...path, 'name'], `"${name}" is not a valid StorageClass name (a DNS-1123 subdomain)`);
  const provisioner = 'provisioner' in map ? readString(map['provisioner'], [...path, 'provisioner']) : EBS_PROVISIONER;
  if (provisioner.length > 63 || !PROVISIONER.test(provisioner)) throw new FieldError([...path, 'provisioner'], `"${provisioner}" is not a valid provisioner name`);
  const volumeBindingMode = 'volumeBindingMode' in map ? readOneOf(map['volumeBindingMode'], [...path, 'volumeBindingMode'], ['Immediate', 'WaitForFirstConsumer'] as const, 'volume binding mode') : 'Immediate';
  const reclaimPolicy = 'reclaimPolicy' in map ? readOneOf(map['reclaimPolicy'], [...path, 'reclaimPolicy'], ['Delete', 'Retain'] as const, 'reclaim policy') : 'Delete';
  const expansion = 'allowVolumeExpansion' in map ? { allowVolumeExpansion: readBoolean(map['allowVolumeExpansion'], [...path, 'allowVolumeExpansion']) } : {};
  if (!('localVolumes' in map)) return { name, provisioner, volumeBindingMode, reclaimPolicy, ...expansion };
  if (provisioner !== NO_PROVISIONER) throw new FieldError([...path, 'localVolumes'], `static local volumes need provisioner ${NO_PROVISIONER} (got "${provisioner}", which provisions its own)`);
  return { name, provisioner, volumeBindingMode, reclaimPolicy, ...expansion, localVolumes: readLocalVolumes(map['localVolumes'], [...path, 'localVolumes'], pools) };
}

function readLocalVolumes(raw: unknown, path: FieldPath, pools: readonly NodePoolSetting[] | undefined): NonNullable<StorageClassSetting['localVolumes']> {
  const map = expectMapping(raw, path, 'local volumes {perNode, capacity, pools}');
  rejectUnknownFields(map, path, LOCAL_VOLUMES_FIELDS);
  const perNode = readInteger(required(map, 'perNode', path), [...path, 'perNode'], 1, MAX_DISKS_PER_NODE);
  const capacity = readString(required(map, 'capacity', path), [...path, 'capacity']);
  if (!isPositiveQuantity(capacity)) throw new FieldError([...path, 'capacity'], `"${capacity}" is not a positive quantity (e.g. 200Gi)`);
  if (!('pools' in map)) return { perNode, capacity };
  const list = map['pools'];
  if (!Array.isArray(list) || list.length === 0) throw new FieldError([...path, 'pools'], `expected a non-empty list of node pool names, got ${describeValue(list)}`);
  if (!pools) throw new FieldError([...path, 'pools'], 'names node pools, but sim.nodes is a count: give sim.nodes as node pools, or leave pools out (every node)');
  const names = list.map((p: unknown, i) => {
    const pool = readString(p, [...path, 'pools', i]);
    if (!pools.some((np) => np.name === pool)) throw new FieldError([...path, 'pools', i], `no node pool "${pool}" in sim.nodes (have: ${pools.map((np) => np.name).join(', ')})`);
    return pool;
  });
  return { perNode, capacity, pools: names };
}

function isPositiveQuantity(value: string): boolean {
  try {
    return parseQuantity(value) > 0;
  } catch {
    return false;
  }
}

/** The world's form of `sim.storageClasses`: each class by name, as `SimWorldOptions.storageClasses` takes them. */
export function worldStorageClasses(classes: readonly StorageClassSetting[]): Record<string, StorageClassSim> {
  return Object.fromEntries(classes.map((c) => [c.name, { provisioner: c.provisioner, volumeBindingMode: c.volumeBindingMode, reclaimPolicy: c.reclaimPolicy, ...(c.allowVolumeExpansion === undefined ? {} : { allowVolumeExpansion: c.allowVolumeExpansion }), ...(c.localVolumes ? { localVolumes: c.localVolumes } : {}) }]));
}
