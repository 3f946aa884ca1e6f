/**
 * The scheduler's VolumeBinding plugin (kubernetes pkg/scheduler/framework/plugins/volumebinding:
 * binder.go's `FindPodVolumes` — `checkBoundClaims`, `findMatchingVolumes`, `checkVolumeProvisions`
 * and the reasons `ErrReasonNodeConflict` / `ErrReasonBindConflict` — then `AssumePodVolumes` and
 * `BindPodVolumes`; volume_binding.go's PreFilter for `ErrUnboundImmediatePVC`), for the claims a pod mounts:
 * - a bound claim (or one a volume is already reserved for) fits only the nodes its volume's node
 *   affinity allows: "node(s) had volume node affinity conflict";
 * - an unbound claim of an Immediate class (or without a class) is the PV controller's to bind
 *   first: no node fits, "pod has unbound immediate PersistentVolumeClaims";
 * - an unbound claim of a WaitForFirstConsumer class fits a node that has a free volume matching it
 *   (class, access modes, capacity ≥ request, node affinity; the smallest, as `findMatchingVolumes`),
 *   each claim of the pod its own volume — or any node when its class provisions dynamically; a
 *   `kubernetes.io/no-provisioner` class with no such volume: "node(s) didn't find available
 *   persistent volumes to bind".
 * Binding a pod then reserves each matched volume for its claim (the volume's claimRef, which the PV
 * controller completes) and marks the claims to provision with the chosen node.
 */
import type { KubeObject } from './object.js';
import { nodeMatchesTerms } from './kubelet-scheduler.js';
import { NO_PROVISIONER } from './storage-classes.js';
import { isAvailable, isBoundTo, satisfies } from './controllers/volume-binding.js';
import { parseQuantity } from './quantity.js';

/** Looks objects up by name. */
export type ByName = { get(name: string): KubeObject | undefined };

/** What the plugin reads: the pod namespace's claims, volumes and classes by name, and the free (Available) volumes, which the view may read once per pod. */
export type VolumeView = { claims: ByName; volumes: ByName; classes: ByName; freeVolumes(): readonly KubeObject[] };

/** What placing a pod on a node takes: volumes to reserve (claim name → volume name) and claims to provision. */
export type VolumePlan = { reserve: ReadonlyMap<string, string>; provision: readonly string[] };

type Term = Parameters<typeof nodeMatchesTerms>[1][number];

const storageOf = (pv: KubeObject): number => {
  try {
    return parseQuantity(String(pv.spec?.capacity?.storage ?? '0'));
  } catch {
    return 0;
  }
};

/** The volume a claim is bound to or reserved for, if any. */
function volumeOf(claim: KubeObject, view: VolumeView, free: () => readonly KubeObject[]): KubeObject | undefined {
  const named = typeof claim.spec?.volumeName === 'string' ? view.volumes.get(claim.spec.volumeName) : undefined;
  if (named) return named;
  return free().find((pv) => isBoundTo(pv, claim));
}

/** The StorageClass `claim` names, if it names one that exists. */
function classOf(claim: KubeObject, view: VolumeView): KubeObject | undefined {
  const name = claim.spec?.storageClassName;
  return typeof name === 'string' && name !== '' ? view.classes.get(name) : undefined;
}

/** The claims of `names` that are unbound and not delayed: no node fits the pod until they bind. */
export function hasUnboundImmediateClaims(names: readonly string[], view: VolumeView): boolean {
  return names.some((n) => {
    const claim = view.claims.get(n);
    if (!claim || claim.spec?.volumeName) return false;
    // A claim of a class that does not exist is the PV controller's to report (ProvisioningFailed).
    if (claim.spec?.storageClassName === '') return true;
    const sc = classOf(claim, view);
    return sc !== undefined && sc.volumeBindingMode !== 'WaitForFirstConsumer';
  });
}

/** Where `node` stands for the pod's claims `names`: the plan, or the reason it does not fit. */
export function planVolumes(names: readonly string[], node: KubeObject, view: VolumeView): VolumePlan | { reason: string } {
  const free = (): readonly KubeObject[] => view.freeVolumes();
  const reserve = new Map<string, string>();
  const provision: string[] = [];
  for (const name of names) {
    const claim = view.claims.get(name);
    if (!claim) continue;
    const pv = volumeOf(claim, view, free);
    if (pv) {
      const terms = pv.spec?.nodeAffinity?.required?.nodeSelectorTerms as Term[] | undefined;
      if (terms && !nodeMatchesTerms(node, terms)) return { reason: 'node(s) had volume node affinity conflict' };
      continue;
    }
    const taken = new Set(reserve.values());
    const fits = free().filter((v) => isAvailable(v) && !v.spec?.claimRef && !taken.has(v.metadata.name ?? '') && satisfies(v, claim, node));
    const best = [...fits].sort((a, b) => storageOf(a) - storageOf(b) || (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''))[0];
    if (best) reserve.set(name, best.metadata.name ?? '');
    else if (classOf(claim, view)?.provisioner === NO_PROVISIONER) return { reason: "node(s) didn't find available persistent volumes to bind" };
    else provision.push(name);
  }
  return { reserve, provision };
}
