/**
 * Which pod instances have a dead process. A fault belongs to what it breaks: the pod instance
 * (its uid) and the data it ran on (the uids of the PersistentVolumeClaims it mounted when the fault
 * began). A pod recreated under the same name on the same claims is the same process on the same
 * data and stays down; a replacement on fresh volumes (new claim uids), or a recreated pod that
 * mounts no claim at all, is a new instance and starts healthy. Healing ends it for every instance.
 */
import type { KubeObject } from './object.js';
import type { ObjectStore } from './store.js';
import { podClaimNames } from './kubelet-scheduler.js';

/** A dead process: the pod instance and the claims it mounted. */
type DeadInstance = { uid: string; claimUids: ReadonlySet<string> };

/** The dead processes, keyed by `namespace/pod`. */
export class ProcessFaults {
  private readonly dead = new Map<string, DeadInstance>();

  constructor(private readonly store: ObjectStore) {}

  /** Kills the process of the pod now stored under `namespace/name`; throws if there is none. */
  kill(namespace: string, name: string): void {
    const pod = this.store.get('Pod', namespace, name);
    if (!pod) throw new Error(`pod ${namespace}/${name} does not exist`);
    this.dead.set(`${namespace}/${name}`, { uid: pod.metadata.uid ?? '', claimUids: new Set(this.claimUids(pod)) });
  }

  /** Ends the fault of `namespace/name`, whichever instance now runs there. */
  heal(namespace: string, name: string): void {
    this.dead.delete(`${namespace}/${name}`);
  }

  /** Whether `pod`'s process is dead: it is the killed instance, or runs on one of its claims. */
  isDown(pod: KubeObject): boolean {
    const entry = this.dead.get(`${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`);
    if (!entry) return false;
    if (entry.uid === pod.metadata.uid) return true;
    return this.claimUids(pod).some((uid) => entry.claimUids.has(uid));
  }

  /** The uids of the claims `pod` mounts, as they are stored now (missing claims have none). */
  private claimUids(pod: KubeObject): string[] {
    return podClaimNames(pod).flatMap((claim) => {
      const uid = this.store.get('PersistentVolumeClaim', pod.metadata.namespace, claim)?.metadata.uid;
      return uid ? [uid] : [];
    });
  }
}
