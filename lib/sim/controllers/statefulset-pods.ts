/**
 * What a StatefulSet's pods and claims look like, as stateful_set_utils.go builds them: the pod
 * `<set>-<ordinal>` with the template's labels plus its identity labels, hostname/subdomain from
 * serviceName, the claims `<template>-<set>-<ordinal>` mounted in place of same-named volumes, the
 * revision label, and the status counters computed from the pods.
 */
import type { KubeObject } from '../object.js';
import { isPodAvailable, isPodReady, isTerminating } from '../pod-status.js';
import { controllerRef } from './base.js';

/** The label holding a pod's revision (the ControllerRevision's name). */
export const REVISION_LABEL = 'controller-revision-hash';
/** The pod's own name, so a Service can select exactly one pod. */
export const POD_NAME_LABEL = 'statefulset.kubernetes.io/pod-name';
/** The pod's ordinal (PodIndexLabel, on by default since Kubernetes 1.28). */
export const POD_INDEX_LABEL = 'apps.kubernetes.io/pod-index';

/** A StatefulSet spec with the apps/v1 defaults applied (the simulated server does no defaulting). */
export type StatefulSetSpec = {
  replicas: number;
  serviceName: string;
  podManagementPolicy: 'OrderedReady' | 'Parallel';
  updateStrategy: 'RollingUpdate' | 'OnDelete';
  partition: number;
  revisionHistoryLimit: number;
  minReadySeconds: number;
  selector: unknown;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  template: any;
  volumeClaimTemplates: KubeObject[];
};

/** The set's spec with defaults: 1 replica, OrderedReady, RollingUpdate partition 0, history 10. */
export function statefulSetSpec(set: KubeObject): StatefulSetSpec {
  const spec = set.spec ?? {};
  return {
    replicas: typeof spec.replicas === 'number' ? spec.replicas : 1,
    serviceName: typeof spec.serviceName === 'string' ? spec.serviceName : '',
    podManagementPolicy: spec.podManagementPolicy === 'Parallel' ? 'Parallel' : 'OrderedReady',
    updateStrategy: spec.updateStrategy?.type === 'OnDelete' ? 'OnDelete' : 'RollingUpdate',
    // apps/v1 defaulting gives RollingUpdate a rollingUpdate.partition of 0.
    partition: typeof spec.updateStrategy?.rollingUpdate?.partition === 'number' ? spec.updateStrategy.rollingUpdate.partition : 0,
    revisionHistoryLimit: typeof spec.revisionHistoryLimit === 'number' ? spec.revisionHistoryLimit : 10,
    minReadySeconds: typeof spec.minReadySeconds === 'number' ? spec.minReadySeconds : 0,
    selector: spec.selector,
    template: spec.template ?? {},
    volumeClaimTemplates: Array.isArray(spec.volumeClaimTemplates) ? spec.volumeClaimTemplates : [],
  };
}

/** The ordinal of a pod of `setName` (`<setName>-<n>`), or -1 when the name is not one of its pods. */
export function ordinalOf(setName: string, podName: string): number {
  const match = /^(.*)-([0-9]+)$/.exec(podName);
  if (!match || match[1] !== setName) return -1;
  const ordinal = Number(match[2]);
  return Number.isSafeInteger(ordinal) ? ordinal : -1;
}

/** `<set>-<ordinal>`. */
export function podNameFor(set: KubeObject, ordinal: number): string {
  return `${set.metadata.name ?? ''}-${ordinal}`;
}

/** `<claim template>-<set>-<ordinal>`. */
export function claimNameFor(templateName: string, set: KubeObject, ordinal: number): string {
  return `${templateName}-${set.metadata.name ?? ''}-${ordinal}`;
}

/** The revision a pod was made from (its `controller-revision-hash` label), or ''. */
export function podRevision(pod: KubeObject): string {
  return pod.metadata.labels?.[REVISION_LABEL] ?? '';
}

/** The claims the pod of `ordinal` mounts, labelled with the claim template's and the selector's labels. */
export function claimsFor(set: KubeObject, ordinal: number): KubeObject[] {
  const spec = statefulSetSpec(set);
  const selectorLabels = (spec.selector as { matchLabels?: Record<string, string> } | undefined)?.matchLabels ?? {};
  return spec.volumeClaimTemplates.map((t) => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name: claimNameFor(t.metadata?.name ?? '', set, ordinal),
      namespace: set.metadata.namespace,
      labels: { ...(t.metadata?.labels ?? {}), ...selectorLabels },
      ...(t.metadata?.annotations ? { annotations: { ...t.metadata.annotations } } : {}),
    },
    spec: structuredClone(t.spec ?? {}),
  }));
}

/**
 * A new pod for `ordinal` from `template` (the template of the revision it belongs to), with the
 * identity labels, hostname/subdomain, claim volumes and revision label. Its status is `Pending`,
 * as the API server sets on create.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function newStatefulSetPod(set: KubeObject, template: any, ordinal: number, revision: string): KubeObject {
  const spec = statefulSetSpec(set);
  const name = podNameFor(set, ordinal);
  const claimVolumes = spec.volumeClaimTemplates.map((t) => ({
    name: t.metadata?.name ?? '',
    persistentVolumeClaim: { claimName: claimNameFor(t.metadata?.name ?? '', set, ordinal) },
  }));
  const claimed = new Set(claimVolumes.map((v) => v.name));
  const podSpec = structuredClone(template?.spec ?? {});
  const otherVolumes = ((podSpec.volumes ?? []) as { name: string }[]).filter((v) => !claimed.has(v.name));
  const volumes = [...claimVolumes, ...otherVolumes];
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: set.metadata.namespace,
      labels: { ...(template?.metadata?.labels ?? {}), [POD_NAME_LABEL]: name, [POD_INDEX_LABEL]: String(ordinal), [REVISION_LABEL]: revision },
      ...(template?.metadata?.annotations ? { annotations: { ...template.metadata.annotations } } : {}),
      ...(template?.metadata?.finalizers ? { finalizers: [...template.metadata.finalizers] } : {}),
      ownerReferences: [controllerRef(set)],
    },
    spec: { ...podSpec, hostname: name, ...(spec.serviceName ? { subdomain: spec.serviceName } : {}), ...(volumes.length ? { volumes } : {}) },
    status: { phase: 'Pending' },
  };
}

/** identityMatches: the pod's name, namespace and pod-name label agree with its ordinal in the set. */
export function identityMatches(set: KubeObject, pod: KubeObject): boolean {
  const ordinal = ordinalOf(set.metadata.name ?? '', pod.metadata.name ?? '');
  return ordinal >= 0 && pod.metadata.namespace === set.metadata.namespace && pod.metadata.labels?.[POD_NAME_LABEL] === pod.metadata.name;
}

/** The pod with its identity labels restored (updateIdentity; hostname/subdomain are immutable on a pod). */
export function withIdentity(set: KubeObject, pod: KubeObject): KubeObject {
  const ordinal = ordinalOf(set.metadata.name ?? '', pod.metadata.name ?? '');
  const labels = { ...(pod.metadata.labels ?? {}), [POD_NAME_LABEL]: pod.metadata.name ?? '', [POD_INDEX_LABEL]: String(ordinal) };
  return { ...pod, metadata: { ...pod.metadata, labels } };
}

/**
 * A pod in a terminal phase (Failed or Succeeded): the controller deletes it and recreates it on a
 * later sync (stateful_set_control.go processReplica: "pods with phase Succeeded will also trigger
 * this event … We should restart the pod regardless of the exit code").
 */
export function isTerminal(pod: KubeObject): boolean {
  return pod.status?.phase === 'Failed' || pod.status?.phase === 'Succeeded';
}

/** Running and Ready and not being deleted (the controller's isHealthy). */
export function isHealthy(pod: KubeObject): boolean {
  return isPodReady(pod) && !isTerminating(pod);
}

/** The counters of StatefulSetStatus that come from the pods (computeReplicaStatus). */
export type ReplicaCounts = { replicas: number; readyReplicas: number; availableReplicas: number; currentReplicas: number; updatedReplicas: number };

/** Counts the set's pods: every pod, the ready/available ones, and the non-terminating ones per revision. */
export function countReplicas(pods: readonly KubeObject[], minReadySeconds: number, nowMs: number, currentRevision: string, updateRevision: string): ReplicaCounts {
  const counts: ReplicaCounts = { replicas: 0, readyReplicas: 0, availableReplicas: 0, currentReplicas: 0, updatedReplicas: 0 };
  for (const pod of pods) {
    counts.replicas++;
    if (isPodReady(pod)) {
      counts.readyReplicas++;
      if (isPodAvailable(pod, minReadySeconds, nowMs)) counts.availableReplicas++;
    }
    if (isTerminating(pod)) continue;
    if (podRevision(pod) === currentRevision) counts.currentReplicas++;
    if (podRevision(pod) === updateRevision) counts.updatedReplicas++;
  }
  return counts;
}
