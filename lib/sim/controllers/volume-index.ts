/**
 * The volumes a claim can be bound to or released from, kept from the store's events: those with no
 * claimRef (free to bind) and those whose claimRef names the claim's namespace/name. A claim's sync
 * then reads those few instead of every PersistentVolume of the cluster.
 */
import type { KubeObject } from '../object.js';
import type { ObjectStore, StoreEvent } from '../store.js';
import { compareKeys } from '../store-bucket.js';

type ClaimRef = { namespace?: string; name?: string };

const claimKeyOf = (pv: KubeObject): string | undefined => {
  const ref = pv.spec?.claimRef as ClaimRef | undefined;
  return ref ? `${ref.namespace ?? ''}/${ref.name ?? ''}` : undefined;
};

/** PersistentVolumes by the claim they name (or none). */
export class VolumeClaimIndex {
  private readonly unclaimed = new Map<string, KubeObject>();
  private readonly byClaim = new Map<string, Map<string, KubeObject>>();
  private readonly claimOf = new Map<string, string | undefined>();
  private readonly unsubscribe: () => void;

  constructor(store: ObjectStore) {
    for (const pv of store.list('PersistentVolume')) this.add(pv);
    this.unsubscribe = store.subscribe((ev) => this.apply(ev));
  }

  /** Stops following the store. */
  stop(): void {
    this.unsubscribe();
  }

  /** The volumes naming claim `namespace/name`, then the unclaimed ones; each group by name. */
  candidatesFor(namespace: string | undefined, name: string): KubeObject[] {
    const byName = (a: KubeObject, b: KubeObject): number => compareKeys(a.metadata.name ?? '', b.metadata.name ?? '');
    const named = [...(this.byClaim.get(`${namespace ?? ''}/${name}`)?.values() ?? [])];
    return [...named, ...this.unclaimed.values()].sort(byName);
  }

  /** The volumes whose claimRef names claim `namespace/name`, by name. */
  claimedBy(namespace: string | undefined, name: string): KubeObject[] {
    return [...(this.byClaim.get(`${namespace ?? ''}/${name}`)?.values() ?? [])].sort((a, b) => compareKeys(a.metadata.name ?? '', b.metadata.name ?? ''));
  }

  private apply(ev: StoreEvent): void {
    if (ev.kind !== 'PersistentVolume') return;
    this.drop(ev.object.metadata.name ?? '');
    if (ev.type !== 'DELETED') this.add(ev.object);
  }

  private add(pv: KubeObject): void {
    const name = pv.metadata.name ?? '';
    const claim = claimKeyOf(pv);
    this.claimOf.set(name, claim);
    if (claim === undefined) {
      this.unclaimed.set(name, pv);
      return;
    }
    let set = this.byClaim.get(claim);
    if (!set) this.byClaim.set(claim, (set = new Map()));
    set.set(name, pv);
  }

  private drop(name: string): void {
    if (!this.claimOf.has(name)) return;
    const claim = this.claimOf.get(name);
    this.claimOf.delete(name);
    if (claim === undefined) {
      this.unclaimed.delete(name);
      return;
    }
    const set = this.byClaim.get(claim);
    set?.delete(name);
    if (set?.size === 0) this.byClaim.delete(claim);
  }
}
