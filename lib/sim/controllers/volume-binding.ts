/**
 * The PV controller's matching rules, as pure functions over stored objects: which existing volume a
 * claim may bind (pre-bound by `spec.volumeName` or by the volume's `claimRef`, or an Available
 * volume of the claim's class, access modes and size), which volumes a deleted claim released, and
 * the Event the controller records on a claim it cannot provision.
 */
import type { KubeObject } from '../object.js';
import { rfc3339 } from '../object.js';
import { parseQuantity } from '../quantity.js';
import { nodeMatchesTerms } from '../kubelet-scheduler.js';

type ClaimRef = { namespace?: string; name?: string; uid?: string };

const refOf = (pv: KubeObject): ClaimRef | undefined => pv.spec?.claimRef as ClaimRef | undefined;

/** Whether `pv`'s claimRef names `claim` (by namespace and name, and by uid when the ref has one). */
export function isBoundTo(pv: KubeObject, claim: KubeObject): boolean {
  const ref = refOf(pv);
  if (!ref || ref.namespace !== claim.metadata.namespace || ref.name !== claim.metadata.name) return false;
  return ref.uid === undefined || ref.uid === claim.metadata.uid;
}

/**
 * Whether `pv` was bound to the claim `namespace/name` with a uid other than `liveUid`: its claim
 * was deleted (or replaced by a namesake), so the volume is released. A claimRef without a uid is
 * an admin's pre-binding, not a release.
 */
export function isReleasedFrom(pv: KubeObject, namespace: string, name: string, liveUid: string | undefined): boolean {
  const ref = refOf(pv);
  return ref?.namespace === namespace && ref.name === name && ref.uid !== undefined && ref.uid !== liveUid;
}

/** Whether `pv` is free to bind: no claimRef, not being deleted. */
export function isAvailable(pv: KubeObject): boolean {
  return refOf(pv) === undefined && !pv.metadata.deletionTimestamp;
}

const storageOf = (value: unknown): number => {
  try {
    return parseQuantity(typeof value === 'number' ? value : String(value ?? '0'));
  } catch {
    return 0;
  }
};

/** Whether an Available `pv` satisfies `claim`: same class, every access mode, enough capacity, reachable from `node` if given. */
export function satisfies(pv: KubeObject, claim: KubeObject, node: KubeObject | undefined): boolean {
  if ((pv.spec?.storageClassName ?? '') !== (claim.spec?.storageClassName ?? '')) return false;
  const modes = (pv.spec?.accessModes ?? []) as string[];
  if (!((claim.spec?.accessModes ?? []) as string[]).every((m) => modes.includes(m))) return false;
  if (storageOf(pv.spec?.capacity?.storage) < storageOf(claim.spec?.resources?.requests?.storage)) return false;
  const terms = pv.spec?.nodeAffinity?.required?.nodeSelectorTerms;
  return !node || !terms || nodeMatchesTerms(node, terms);
}

/**
 * The existing volume `claim` binds, as the PV controller's `findBestMatchForClaim`: the volume
 * `spec.volumeName` names (if free or pre-bound to this claim), else one pre-bound to it by
 * claimRef, else — unless binding waits for a node (`delayed` and no `node`) — the smallest
 * Available volume that satisfies it. `{ conflict }` when the named volume belongs to another claim.
 */
export function findVolumeFor(claim: KubeObject, volumes: readonly KubeObject[], delayed: boolean, node: KubeObject | undefined): { pv?: KubeObject; conflict?: string } {
  const named = claim.spec?.volumeName as string | undefined;
  if (named) {
    const pv = volumes.find((v) => v.metadata.name === named);
    if (!pv) return {};
    return isAvailable(pv) || isBoundTo(pv, claim) ? { pv } : { conflict: `volume "${named}" already bound to a different claim.` };
  }
  const preBound = volumes.find((v) => isBoundTo(v, claim) && !v.metadata.deletionTimestamp);
  if (preBound) return { pv: preBound };
  if (delayed && !node) return {};
  const fits = volumes.filter((v) => isAvailable(v) && v.status?.phase === 'Available' && satisfies(v, claim, node));
  fits.sort((a, b) => storageOf(a.spec?.capacity?.storage) - storageOf(b.spec?.capacity?.storage) || (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
  return fits[0] ? { pv: fits[0] } : {};
}

/** An Event on `claim` from the PV controller (a Warning such as `ProvisioningFailed` unless `type` says Normal). */
export function claimEvent(claim: KubeObject, reason: string, message: string, nowMs: number, suffix: string, type: 'Warning' | 'Normal' = 'Warning'): KubeObject {
  const at = rfc3339(nowMs);
  return {
    metadata: { name: `${claim.metadata.name ?? ''}.${suffix}`, namespace: claim.metadata.namespace },
    involvedObject: { kind: 'PersistentVolumeClaim', apiVersion: 'v1', namespace: claim.metadata.namespace, name: claim.metadata.name, uid: claim.metadata.uid, resourceVersion: claim.metadata.resourceVersion },
    type,
    reason,
    message,
    source: { component: 'persistentvolume-controller' },
    reportingComponent: 'persistentvolume-controller',
    firstTimestamp: at,
    lastTimestamp: at,
    count: 1,
  };
}
