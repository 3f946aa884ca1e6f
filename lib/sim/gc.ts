/**
 * The garbage collector and namespace controller: dependents whose owners are all gone are deleted
 * (background propagation); `foregroundDeletion` owners wait until their dependents are gone;
 * `orphan` owners release their dependents first; a Terminating namespace is emptied, then removed.
 * Level-triggered: each pass looks at the whole store, so a missed event cannot leak an object.
 */
import type { TimerHandle } from '../platform/clock.js';
import type { KubeObject } from './object.js';
import { CRD_CLEANUP_FINALIZER } from './crd/definitions.js';
import { CRD_KIND } from './crd/registry.js';
import { FOREGROUND_FINALIZER, ORPHAN_FINALIZER, type ObjectStore } from './store.js';

/** Runs garbage collection passes on the store's clock after relevant changes. */
export class GarbageCollector {
  private pending: TimerHandle | undefined;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly store: ObjectStore,
    private readonly delayMs = 0,
  ) {
    this.unsubscribe = store.subscribe((ev) => {
      if (ev.type === 'DELETED' || ev.object.metadata.deletionTimestamp || ev.object.metadata.ownerReferences?.length) this.schedule();
    });
  }

  /** Stops reacting to changes. */
  stop(): void {
    this.unsubscribe();
    if (this.pending) this.store.clock.clearTimer(this.pending);
  }

  /** One full pass; returns how many writes it made (tests and the scheduler use it). */
  runOnce(): number {
    let writes = 0;
    // CRDs are large (their schemas): only those being deleted or owned take part in a pass.
    const kinds = [...new Set(this.store.resources.all().map((r) => r.kind))];
    const all = kinds.flatMap((k) => this.store.list(k, undefined, k === CRD_KIND ? (o) => !!o.metadata.deletionTimestamp || !!o.metadata.ownerReferences?.length : undefined));
    const byUid = new Map(all.map((o) => [o.metadata.uid ?? '', o]));
    for (const obj of all) writes += this.collectDependent(obj, byUid);
    for (const owner of all) writes += this.finishOwner(owner, all);
    writes += this.finishNamespaces(all);
    writes += this.finishCrds(all);
    return writes;
  }

  private schedule(): void {
    if (this.pending) return;
    this.pending = this.store.clock.setTimer(() => {
      this.pending = undefined;
      // A pass that wrote something may have unblocked more (e.g. a foreground owner); go again.
      if (this.runOnce() > 0) this.schedule();
    }, this.delayMs);
  }

  private collectDependent(obj: KubeObject, byUid: Map<string, KubeObject>): number {
    const refs = obj.metadata.ownerReferences ?? [];
    if (refs.length === 0 || obj.metadata.deletionTimestamp) return 0;
    const live = refs.filter((r) => {
      const owner = byUid.get(r.uid);
      return owner !== undefined && owner.kind === r.kind && owner.metadata.name === r.name;
    });
    if (live.length === refs.length) {
      // Owners being deleted in the foreground take their dependents with them.
      const foreground = live.some((r) => byUid.get(r.uid)?.metadata.finalizers?.includes(FOREGROUND_FINALIZER));
      return foreground ? this.deleteQuietly(obj, 'Foreground') : 0;
    }
    if (live.length === 0) return this.deleteQuietly(obj, 'Background');
    // Some owners remain: only the dangling references go.
    this.store.update(obj.kind ?? '', { ...obj, metadata: { ...obj.metadata, ownerReferences: live } });
    return 1;
  }

  private finishOwner(owner: KubeObject, all: KubeObject[]): number {
    const fins = owner.metadata.finalizers ?? [];
    if (!owner.metadata.deletionTimestamp) return 0;
    const uid = owner.metadata.uid;
    const dependents = all.filter((o) => o.metadata.ownerReferences?.some((r) => r.uid === uid));
    let writes = 0;
    if (fins.includes(ORPHAN_FINALIZER)) {
      for (const d of dependents) {
        const stored = this.store.get(d.kind ?? '', d.metadata.namespace, d.metadata.name ?? '');
        if (!stored) continue;
        const refs = (stored.metadata.ownerReferences ?? []).filter((r) => r.uid !== uid);
        this.store.update(d.kind ?? '', { ...stored, metadata: { ...stored.metadata, ownerReferences: refs.length ? refs : undefined } });
        writes++;
      }
      return writes + this.dropFinalizer(owner, ORPHAN_FINALIZER);
    }
    if (fins.includes(FOREGROUND_FINALIZER)) {
      const blocking = dependents.filter((d) => this.store.get(d.kind ?? '', d.metadata.namespace, d.metadata.name ?? ''));
      if (blocking.length === 0) return this.dropFinalizer(owner, FOREGROUND_FINALIZER);
    }
    return writes;
  }

  private finishNamespaces(all: KubeObject[]): number {
    let writes = 0;
    for (const ns of all.filter((o) => o.kind === 'Namespace' && o.metadata.deletionTimestamp)) {
      const name = ns.metadata.name ?? '';
      const content = all.filter((o) => o.metadata.namespace === name && this.store.resources.byKind(o.kind ?? '')?.namespaced);
      for (const o of content) writes += this.deleteQuietly(o, 'Background');
      if (content.length === 0 && this.store.finishNamespace(name)) writes++;
    }
    return writes;
  }

  /** As the CRD finalizer controller: a deleted CRD's custom resources go, then the CRD itself. */
  private finishCrds(all: KubeObject[]): number {
    let writes = 0;
    for (const crd of all.filter((o) => o.kind === CRD_KIND && o.metadata.deletionTimestamp && o.metadata.finalizers?.includes(CRD_CLEANUP_FINALIZER))) {
      const kind = (crd.spec?.names as { kind?: string } | undefined)?.kind ?? '';
      const content = all.filter((o) => o.kind === kind);
      for (const o of content) writes += this.deleteQuietly(o, 'Background');
      if (content.length === 0) writes += this.dropFinalizer(crd, CRD_CLEANUP_FINALIZER);
    }
    return writes;
  }

  private dropFinalizer(owner: KubeObject, finalizer: string): number {
    const stored = this.store.get(owner.kind ?? '', owner.metadata.namespace, owner.metadata.name ?? '');
    if (!stored) return 0;
    const rest = (stored.metadata.finalizers ?? []).filter((f) => f !== finalizer);
    this.store.update(owner.kind ?? '', { ...stored, metadata: { ...stored.metadata, finalizers: rest.length ? rest : undefined } });
    return 1;
  }

  private deleteQuietly(obj: KubeObject, propagationPolicy: 'Background' | 'Foreground'): number {
    if (obj.metadata.deletionTimestamp) return 0;
    try {
      this.store.delete(obj.kind ?? '', obj.metadata.namespace, obj.metadata.name ?? '', {
        propagationPolicy,
        preconditions: { uid: obj.metadata.uid },
      });
      return 1;
    } catch {
      // Already gone or replaced by a new object of the same name: nothing to collect.
      return 0;
    }
  }
}
