/**
 * The exporter's reference index: which clusters name another in `spec.cluster`, and which
 * TidbCluster changes of the named cluster queue them.
 */
import { describe, expect, it } from '@jest/globals';
import type { WatchChange } from '../../lib/exporter/ports.js';
import { ReferenceIndex } from '../../lib/exporter/references.js';
import type { KubeObject } from '../../lib/kube/port.js';

const key = (name: string, namespace = 'demo') => `eks/${namespace}/${name}`;
const tc = (name: string, o: { cluster?: { name: string; namespace?: string }; status?: Record<string, unknown>; namespace?: string; pd?: boolean } = {}): KubeObject => ({
  metadata: { name, namespace: o.namespace ?? 'demo', resourceVersion: '1' },
  spec: { ...(o.pd === false ? {} : { pd: { replicas: 3 } }), ...(o.cluster ? { cluster: o.cluster } : {}) },
  ...(o.status ? { status: o.status } : {}),
});
const hetero = tc('basic-hetero', { cluster: { name: 'basic' }, pd: false });
const stores = (...ids: string[]) => ({ tikv: { stores: Object.fromEntries(ids.map((id) => [id, { id, podName: `basic-tikv-${id}`, state: 'Up', leaderCount: 30 }])) } });
const modified = (object: KubeObject): WatchChange => ({ type: 'MODIFIED', object });

describe('the reference index', () => {
  it.each([
    { name: 'a cluster naming another in spec.cluster is its referrer', objects: [hetero], target: 'basic', expected: [key('basic-hetero')] },
    { name: "spec.cluster's namespace defaults to the referrer's", objects: [tc('h', { cluster: { name: 'basic' }, namespace: 'other' })], target: 'basic', expected: [] },
    { name: 'a namespace in spec.cluster is honoured', objects: [tc('h', { cluster: { name: 'basic', namespace: 'demo' }, namespace: 'other' })], target: 'basic', expected: [key('h', 'other')] },
    { name: 'a cluster with its own PD that joins another one is a referrer too', objects: [tc('joiner', { cluster: { name: 'basic' } })], target: 'basic', expected: [key('joiner')] },
    { name: 'a cluster naming itself is no referrer', objects: [tc('basic', { cluster: { name: 'basic' } })], target: 'basic', expected: [] },
    { name: 'a cluster without spec.cluster refers to nothing', objects: [tc('basic')], target: 'basic', expected: [] },
  ])('$name', ({ objects, target, expected }) => {
    // Prepare
    const index = new ReferenceIndex('eks');
    // Act
    for (const object of objects) index.observe({ type: 'ADDED', object }, key(object.metadata.name ?? '', object.metadata.namespace), true);
    // Assess
    expect(index.referrersOf(key(target))).toEqual(expected);
  });

  it.each([
    { name: 'its spec changed (meaningful for it): referrers queued', before: tc('basic', { status: stores('1') }), after: tc('basic', { status: stores('1') }), meaningful: true, queued: true },
    { name: 'a store appeared in its status: referrers queued', before: tc('basic', { status: stores('1') }), after: tc('basic', { status: stores('1', '2') }), meaningful: false, queued: true },
    { name: 'a store changed state: referrers queued', before: tc('basic', { status: stores('1') }), after: tc('basic', { status: { tikv: { stores: { 1: { id: '1', podName: 'basic-tikv-1', state: 'Offline' } } } } }), meaningful: false, queued: true },
    {
      name: 'only a leader count or a condition time changed: nothing queued',
      before: tc('basic', { status: stores('1') }),
      after: tc('basic', { status: { ...stores('1'), conditions: [{ type: 'Ready', lastUpdateTime: 'later' }], tikv: { stores: { 1: { id: '1', podName: 'basic-tikv-1', state: 'Up', leaderCount: 12 } } } } }),
      meaningful: false,
      queued: false,
    },
    { name: 'a PD member turned unhealthy: referrers queued', before: tc('basic', { status: { pd: { members: { a: { name: 'a', id: '1', health: true } } } } }), after: tc('basic', { status: { pd: { members: { a: { name: 'a', id: '1', health: false } } } } }), meaningful: false, queued: true },
  ])('the referenced cluster: $name', ({ before, after, meaningful, queued }) => {
    // Prepare
    const index = new ReferenceIndex('eks');
    index.reset(undefined, [before, hetero]);
    // Act
    const referrers = index.observe(modified(after), key('basic'), meaningful);
    // Assess
    expect(referrers).toEqual(queued ? [key('basic-hetero')] : []);
  });

  it('a topology not seen before (the first event after the cluster became referenced) queues the referrers', () => {
    const index = new ReferenceIndex('eks');
    index.observe({ type: 'ADDED', object: hetero }, key('basic-hetero'), true);
    expect(index.observe(modified(tc('basic', { status: stores('1') })), key('basic'), false)).toEqual([key('basic-hetero')]);
    expect(index.observe(modified(tc('basic', { status: stores('1') })), key('basic'), false)).toEqual([]);
  });

  it('the referenced cluster deleted: its referrers are queued and stay indexed', () => {
    const index = new ReferenceIndex('eks');
    index.reset(undefined, [tc('basic'), hetero]);
    expect(index.observe({ type: 'DELETED', object: tc('basic') }, key('basic'), true)).toEqual([key('basic-hetero')]);
    expect(index.referrersOf(key('basic'))).toEqual([key('basic-hetero')]);
  });

  it.each([
    { name: 'a referrer deleted is forgotten', change: { type: 'DELETED', object: hetero } as WatchChange },
    { name: 'a referrer that drops spec.cluster is forgotten', change: modified(tc('basic-hetero')) },
  ])('$name', ({ change }) => {
    // Prepare
    const index = new ReferenceIndex('eks');
    index.reset(undefined, [tc('basic'), hetero]);
    // Act
    index.observe(change, key('basic-hetero'), true);
    // Assess
    expect([index.referrersOf(key('basic')), index.size]).toEqual([[], 0]);
  });

  it('a referrer that names another cluster moves to it', () => {
    const index = new ReferenceIndex('eks');
    index.reset(undefined, [hetero]);
    index.observe(modified(tc('basic-hetero', { cluster: { name: 'other' }, pd: false })), key('basic-hetero'), true);
    expect([index.referrersOf(key('basic')), index.referrersOf(key('other'))]).toEqual([[], [key('basic-hetero')]]);
  });

  it("a LIST replaces only its namespace's referrers", () => {
    // Prepare: referrers in demo and in other
    const index = new ReferenceIndex('eks');
    index.reset(undefined, [hetero, tc('h2', { cluster: { name: 'basic', namespace: 'demo' }, namespace: 'other' })]);
    // Act: demo relisted without its referrer (deleted while unwatched)
    index.reset('demo', [tc('basic')]);
    // Assess
    expect(index.referrersOf(key('basic'))).toEqual([key('h2', 'other')]);
  });

  it('is bounded: past maxReferrers a new referrer is counted, not indexed; a known one still updates', () => {
    // Prepare
    let unindexed = 0;
    const index = new ReferenceIndex('eks', { maxReferrers: 1, onUnindexed: () => (unindexed += 1) });
    index.reset(undefined, [hetero]);
    // Act
    index.observe({ type: 'ADDED', object: tc('h2', { cluster: { name: 'basic' } }) }, key('h2'), true);
    index.observe(modified(tc('basic-hetero', { cluster: { name: 'other' }, pd: false })), key('basic-hetero'), true);
    // Assess
    expect([index.size, unindexed, index.referrersOf(key('other'))]).toEqual([1, 1, [key('basic-hetero')]]);
  });

  it('a snapshot restores into an empty index (a warm session resuming where the last one stopped)', () => {
    const index = new ReferenceIndex('eks');
    index.reset(undefined, [hetero]);
    const next = new ReferenceIndex('eks');
    next.restore(index.snapshot('demo'));
    expect(next.referrersOf(key('basic'))).toEqual([key('basic-hetero')]);
  });
});
