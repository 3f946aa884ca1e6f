/**
 * The garbage collector's view of ownership, kept from the store's events: where each uid lives, and
 * which objects name each uid as an owner. With it a collection pass looks only at the objects a
 * change can affect, instead of every object of every kind.
 */
import type { KubeObject } from './object.js';
import type { StoreEvent } from './store.js';

type Place = { kind: string; namespace: string | undefined; name: string };

/** Owner and dependent links by uid. */
export class OwnershipIndex {
  private readonly places = new Map<string, Place>();
  private readonly dependents = new Map<string, Set<string>>();
  private readonly ownersOf = new Map<string, string[]>();

  /** Indexes `obj` as it is now stored. */
  add(obj: KubeObject): void {
    const uid = obj.metadata.uid ?? '';
    this.places.set(uid, { kind: obj.kind ?? '', namespace: obj.metadata.namespace, name: obj.metadata.name ?? '' });
    const owners = (obj.metadata.ownerReferences ?? []).map((r) => r.uid);
    this.unlink(uid);
    if (owners.length === 0) return;
    this.ownersOf.set(uid, owners);
    for (const owner of owners) {
      let set = this.dependents.get(owner);
      if (!set) this.dependents.set(owner, (set = new Set()));
      set.add(uid);
    }
  }

  /** Follows one store event. */
  apply(ev: StoreEvent): void {
    if (ev.type === 'DELETED') this.remove(ev.object.metadata.uid ?? '');
    else this.add(ev.object);
  }

  /** Where `uid` is stored, if it is. */
  placeOf(uid: string): Place | undefined {
    return this.places.get(uid);
  }

  /** The uids of the objects that name `uid` as an owner. */
  dependentsOf(uid: string): readonly string[] {
    return [...(this.dependents.get(uid) ?? [])];
  }

  private remove(uid: string): void {
    this.places.delete(uid);
    this.unlink(uid);
  }

  private unlink(uid: string): void {
    for (const owner of this.ownersOf.get(uid) ?? []) {
      const set = this.dependents.get(owner);
      set?.delete(uid);
      if (set?.size === 0) this.dependents.delete(owner);
    }
    this.ownersOf.delete(uid);
  }
}
