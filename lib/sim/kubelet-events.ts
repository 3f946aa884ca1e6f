/**
 * The Events the simulated kubelet records about a pod, as the real one does for `kubectl describe
 * pod`: `FailedMount` when a secret volume's Secret does not exist (`MountVolume.SetUp failed for
 * volume "v" : secret "s" not found`), once per pod instance and Secret, so a pod waiting on a
 * missing certificate says why.
 */
import { type KubeObject, rfc3339 } from './object.js';
import type { ObjectStore } from './store.js';

/** The Secrets a pod's non-optional secret volumes mount. */
export function podSecretNames(pod: KubeObject): string[] {
  const volumes = (pod.spec?.volumes ?? []) as { secret?: { secretName?: string; optional?: boolean } }[];
  return volumes.flatMap((v) => (v.secret?.secretName !== undefined && v.secret.optional !== true ? [v.secret.secretName] : []));
}

/** The secret volumes of `pod` whose Secret is missing: `[volume, secret]`, optional ones left out. */
export function missingSecretVolumes(store: ObjectStore, pod: KubeObject): [string, string][] {
  const volumes = (pod.spec?.volumes ?? []) as { name: string; secret?: { secretName?: string; optional?: boolean } }[];
  return volumes.flatMap((v) => {
    const secret = v.secret?.secretName;
    if (secret === undefined || v.secret?.optional === true || store.get('Secret', pod.metadata.namespace, secret) !== undefined) return [];
    return [[v.name, secret] as [string, string]];
  });
}

/** Records the kubelet's `FailedMount` Warning for each missing Secret of `pod`, unless this pod instance already has it. */
export function recordFailedMounts(store: ObjectStore, pod: KubeObject, missing: readonly [string, string][]): void {
  for (const [volume, secret] of missing) {
    const name = `${pod.metadata.name ?? ''}.${(pod.metadata.uid ?? '').slice(0, 8)}.${volume}`;
    if (store.get('Event', pod.metadata.namespace, name)) continue;
    const at = rfc3339(store.clock.nowMs());
    store.create('Event', {
      metadata: { name, namespace: pod.metadata.namespace },
      involvedObject: { kind: 'Pod', apiVersion: 'v1', namespace: pod.metadata.namespace, name: pod.metadata.name, uid: pod.metadata.uid },
      type: 'Warning',
      reason: 'FailedMount',
      message: `MountVolume.SetUp failed for volume "${volume}" : secret "${secret}" not found`,
      source: { component: 'kubelet', host: pod.spec?.nodeName },
      reportingComponent: 'kubelet',
      firstTimestamp: at,
      lastTimestamp: at,
      count: 1,
    });
  }
}
