import { describe, expect, it } from '@jest/globals';
import type { INode } from 'kubernetes-models/v1/Node';
import type { IPod } from 'kubernetes-models/v1/Pod';

import { toKubeTime } from '../../../../lib/reconcile/cluster/condition.js';
import {
  canDoCleanUpNow,
  hostDownReasonOf,
  nodeAvailabilityOf,
  podAndPvcDeletes,
  type HostDownReason,
  type NodeAvailability,
} from '../../../../lib/reconcile/member/failure-recovery.js';
import { T0, testPod, testPvc } from '../../../support/fixtures.js';

const MIN = 60_000;
const HOUR = 60 * MIN;

/** A node named node-0 with the given conditions (type → status). */
const node = (conditions: Record<string, string>): INode => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name: 'node-0' },
  status: { conditions: Object.entries(conditions).map(([type, status]) => ({ type, status })) },
});
/** A pod in `phase`, Ready or not. */
const podIn = (phase: 'Running' | 'Unknown', ready: boolean): IPod => {
  const pod = testPod('basic-tikv-1', { component: 'tikv', ready });
  return { ...pod, status: { ...pod.status, phase } };
};

describe('Fixture N (S154): what the failing pod’s node says', () => {
  it.each<{ name: string; pod: IPod; node: INode | undefined; expected: NodeAvailability }>([
    { name: 'pod phase Unknown is nodeUnavailable', pod: podIn('Unknown', false), node: node({ Ready: 'True' }), expected: 'nodeUnavailable' },
    { name: 'a Running unready pod on a node whose Ready is False is nodeUnavailable', pod: podIn('Running', false), node: node({ Ready: 'False' }), expected: 'nodeUnavailable' },
    { name: 'a Running unready pod on a node whose Ready is Unknown is nodeUnavailable', pod: podIn('Running', false), node: node({ Ready: 'Unknown' }), expected: 'nodeUnavailable' },
    { name: 'a Ready pod on a node with RODiskFound=True is roDiskFound', pod: podIn('Running', true), node: node({ Ready: 'True', RODiskFound: 'True' }), expected: 'roDiskFound' },
    { name: 'a Running unready pod on a Ready node is available', pod: podIn('Running', false), node: node({ Ready: 'True' }), expected: 'available' },
    { name: 'an unready pod on a node with RODiskFound=True is available', pod: podIn('Running', false), node: node({ Ready: 'True', RODiskFound: 'True' }), expected: 'available' },
    { name: 'a Ready pod on a node with RODiskFound=False is available', pod: podIn('Running', true), node: node({ Ready: 'True', RODiskFound: 'False' }), expected: 'available' },
    { name: 'an unready pod whose node was not read is available', pod: podIn('Running', false), node: undefined, expected: 'available' },
  ])('$name', ({ pod, node: n, expected }) => {
    // Act
    const availability = nodeAvailabilityOf(pod, n);

    // Assess
    expect(availability).toBe(expected);
  });
});

describe('host-down reasons (§2.8)', () => {
  const withClaims = { pvcUIDSet: { 'uid-tikv-basic-tikv-1': {} } };
  it.each<{ name: string; failure: { pvcUIDSet?: Record<string, unknown> }; sinceMs: number; pod: IPod; node: INode; expected: HostDownReason | undefined }>([
    { name: 'down for more than podHardRecoveryPeriod (24h) is StoreDownTimeExceeded', failure: withClaims, sinceMs: T0 - 24 * HOUR - 1, pod: podIn('Running', true), node: node({ Ready: 'True' }), expected: 'StoreDownTimeExceeded' },
    { name: 'down for exactly 24h is not yet', failure: withClaims, sinceMs: T0 - 24 * HOUR, pod: podIn('Running', true), node: node({ Ready: 'True' }), expected: undefined },
    { name: 'an unready pod on a NotReady node is NodeFailure', failure: withClaims, sinceMs: T0 - HOUR, pod: podIn('Running', false), node: node({ Ready: 'Unknown' }), expected: 'NodeFailure' },
    { name: 'a Ready pod on a read-only disk is RODiskFound', failure: withClaims, sinceMs: T0 - HOUR, pod: podIn('Running', true), node: node({ Ready: 'True', RODiskFound: 'True' }), expected: 'RODiskFound' },
    { name: 'a pod on a healthy node is not host-down', failure: withClaims, sinceMs: T0 - HOUR, pod: podIn('Running', false), node: node({ Ready: 'True' }), expected: undefined },
    { name: 'a failure without recorded claims is never host-down', failure: { pvcUIDSet: {} }, sinceMs: T0 - 48 * HOUR, pod: podIn('Unknown', false), node: node({ Ready: 'Unknown' }), expected: undefined },
  ])('$name', ({ failure, sinceMs, pod, node: n, expected }) => {
    // Act
    const reason = hostDownReasonOf(failure, sinceMs, pod, n, T0);

    // Assess
    expect(reason).toBe(expected);
  });
});

describe('Fixture N (S152): the clean-up waits restartToDeleteStoreGap after the pod is recreated', () => {
  const createdAt = toKubeTime(T0 - 30 * MIN);
  it.each<{ name: string; failure: { hostDown?: boolean; createdAt?: string }; pod: IPod | undefined; expected: boolean }>([
    { name: 'hostDown, pod recreated after createdAt but less than 10m ago: not yet', failure: { hostDown: true, createdAt }, pod: testPod('basic-tikv-1', { createdAtMs: T0 - 10 * MIN + 1_000 }), expected: false },
    { name: 'hostDown, pod recreated after createdAt 10m ago: now', failure: { hostDown: true, createdAt }, pod: testPod('basic-tikv-1', { createdAtMs: T0 - 10 * MIN }), expected: true },
    { name: 'hostDown, pod not recreated since the failure: not yet', failure: { hostDown: true, createdAt }, pod: testPod('basic-tikv-1', { createdAtMs: T0 - 40 * MIN }), expected: false },
    { name: 'hostDown, no pod: not yet', failure: { hostDown: true, createdAt }, pod: undefined, expected: false },
    { name: 'not hostDown: at once', failure: { createdAt }, pod: undefined, expected: true },
  ])('$name', ({ failure, pod, expected }) => {
    // Act
    const now = canDoCleanUpNow(failure, pod, T0);

    // Assess
    expect(now).toBe(expected);
  });
});

describe('Fixture N (S153): the pod and recorded claims deleted', () => {
  const recorded = { 'uid-tikv-basic-tikv-1': {} };
  const podDelete = { kind: 'delete', ref: { kind: 'Pod', namespace: 'demo', name: 'basic-tikv-1' }, uid: 'uid-basic-tikv-1', resourceVersion: '7' };
  const pvcDelete = { kind: 'delete', ref: { kind: 'PersistentVolumeClaim', namespace: 'demo', name: 'tikv-basic-tikv-1' }, uid: 'uid-tikv-basic-tikv-1' };
  it.each<{ name: string; podDeleting: boolean; pvcDeleting: boolean; pvcUIDSet: Record<string, unknown>; expected: object[] }>([
    { name: 'pod and claim not deleting: both deleted', podDeleting: false, pvcDeleting: false, pvcUIDSet: recorded, expected: [podDelete, pvcDelete] },
    { name: 'claim already deleting: only the pod', podDeleting: false, pvcDeleting: true, pvcUIDSet: recorded, expected: [podDelete] },
    { name: 'pod already deleting: only the claim', podDeleting: true, pvcDeleting: false, pvcUIDSet: recorded, expected: [pvcDelete] },
    { name: 'both deleting: nothing', podDeleting: true, pvcDeleting: true, pvcUIDSet: recorded, expected: [] },
    { name: 'claim uid not in pvcUIDSet: only the pod', podDeleting: false, pvcDeleting: false, pvcUIDSet: { 'uid-other': {} }, expected: [podDelete] },
  ])('$name', ({ podDeleting, pvcDeleting, pvcUIDSet, expected }) => {
    // Prepare
    const pod = testPod('basic-tikv-1', { component: 'tikv', deleting: podDeleting });
    const pvc = testPvc('tikv-basic-tikv-1', 'basic-tikv-1', { deleting: pvcDeleting });

    // Act
    const deletes = podAndPvcDeletes('demo', pod, [pvc], pvcUIDSet);

    // Assess
    expect(deletes).toEqual(expected);
  });
});
