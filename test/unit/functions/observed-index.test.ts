/**
 * The warm process's `ObservedIndex`: what a step's observer leaves for the executor of the same
 * step. It is bounded (least recently used clusters go first) and answers only for the fence that
 * observed, so an executor never acts on another step's observation. What a step read of the kinds
 * no watch reports is kept for the next step of its key only.
 */
import { describe, expect, it } from '@jest/globals';

import type { OwnedObjects, TidbCluster } from '../../../lib/model/kube.js';
import { DEFAULT_STEP_CONFIG, parseConfig } from '../../../lib/platform/config.js';
import { TerminalError } from '../../../lib/platform/errors.js';
import { NO_OWNED_OBJECTS } from '../../../lib/step/ports.js';
import { DEFAULT_KEPT_CLUSTERS, ObservedIndex, type KeptReads } from '../../../lib/wiring/observed.js';

const cluster = (name: string, tls = false): TidbCluster => ({
  apiVersion: 'pingcap.com/v1alpha1',
  kind: 'TidbCluster',
  metadata: { name, namespace: 'demo', uid: `uid-${name}`, resourceVersion: '5' },
  spec: { pd: { replicas: 1 }, ...(tls ? { tlsCluster: { enabled: true } } : {}) },
});

const withPod = (name: string, uid: string): OwnedObjects => ({
  ...NO_OWNED_OBJECTS,
  Pod: [{ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'demo', uid, resourceVersion: '9' } }],
});

const key = (name: string) => `eks/demo/${name}`;
const tcRef = (name: string) => ({ kind: 'TidbCluster', namespace: 'demo', name }) as const;

describe('ObservedIndex keeps at most its configured number of clusters', () => {
  it('the least recently observed cluster goes first', () => {
    // Prepare
    const index = new ObservedIndex(2);

    // Act
    for (const name of ['a', 'b', 'c']) index.remember(key(name), 1, name, cluster(name), NO_OWNED_OBJECTS);

    // Assess
    expect(index.size).toBe(2);
    expect(index.identity(key('a'), 1, tcRef('a'))).toBeUndefined();
    expect(index.identity(key('b'), 1, tcRef('b'))).toEqual({ uid: 'uid-b', resourceVersion: '5', apiVersion: 'pingcap.com/v1alpha1' });
    expect(index.identity(key('c'), 1, tcRef('c'))?.uid).toBe('uid-c');
  });

  it('a lookup counts as use: the cluster an executor just read is not the one to go', () => {
    // Prepare
    const index = new ObservedIndex(2);
    index.remember(key('a'), 1, 'a', cluster('a'), NO_OWNED_OBJECTS);
    index.remember(key('b'), 1, 'b', cluster('b'), NO_OWNED_OBJECTS);

    // Act
    index.instance(key('a'), 1);
    index.remember(key('c'), 1, 'c', cluster('c'), NO_OWNED_OBJECTS);

    // Assess
    expect([index.instance(key('a'), 1), index.instance(key('b'), 1), index.instance(key('c'), 1)]).toEqual(['a', undefined, 'c']);
  });

  it('observing a cluster again replaces its entry instead of adding one', () => {
    // Prepare
    const index = new ObservedIndex(2);

    // Act
    for (let fence = 1; fence <= 5; fence++) index.remember(key('a'), fence, 'a', cluster('a'), withPod('basic-pd-0', `uid-${fence}`));

    // Assess
    expect(index.size).toBe(1);
    expect(index.identity(key('a'), 5, { kind: 'Pod', namespace: 'demo', name: 'basic-pd-0' })?.uid).toBe('uid-5');
  });

  it.each([
    { name: 'zero', value: 0 },
    { name: 'a fraction', value: 1.5 },
    { name: 'a negative number', value: -1 },
  ])('a cap of $name is refused', ({ value }) => {
    // Act
    const build = () => new ObservedIndex(value);

    // Assess
    expect(build).toThrow(TerminalError);
  });

  it.each([
    { name: 'unset: the default', env: {}, expected: DEFAULT_STEP_CONFIG.observedClusters },
    { name: 'set', env: { OBSERVED_CLUSTERS: '50' }, expected: 50 },
  ])('the cap is configured by OBSERVED_CLUSTERS ($name)', ({ env, expected }) => {
    // Act
    const config = parseConfig(env);

    // Assess
    expect(config.step.observedClusters).toBe(expected);
  });

  it('OBSERVED_CLUSTERS below 1 is a configuration error naming it', () => {
    // Act
    const parse = () => parseConfig({ OBSERVED_CLUSTERS: '0' });

    // Assess
    expect(parse).toThrow('OBSERVED_CLUSTERS: 0 is below the minimum of 1');
  });
});

describe('ObservedIndex answers only for the step (fence) that observed', () => {
  it('a later fence finds nothing of an earlier fence\'s observation: not its TLS, identities or instance', () => {
    // Prepare: the step with fence 3 saw cluster TLS on and a pod.
    const index = new ObservedIndex();
    index.remember(key('a'), 3, 'a', cluster('a', true), withPod('basic-pd-0', 'uid-old'));

    // Act
    const later = { tls: index.tls(key('a'), 4), pod: index.identity(key('a'), 4, { kind: 'Pod', namespace: 'demo', name: 'basic-pd-0' }), instance: index.instance(key('a'), 4) };
    const same = { tls: index.tls(key('a'), 3), pod: index.identity(key('a'), 3, { kind: 'Pod', namespace: 'demo', name: 'basic-pd-0' })?.uid, instance: index.instance(key('a'), 3) };

    // Assess
    expect(later).toEqual({ tls: false, pod: undefined, instance: undefined });
    expect(same).toEqual({ tls: true, pod: 'uid-old', instance: 'a' });
  });

  it('a new fence\'s observation replaces the old one whole (TLS turned off, the pod replaced)', () => {
    // Prepare
    const index = new ObservedIndex();
    index.remember(key('a'), 3, 'a', cluster('a', true), withPod('basic-pd-0', 'uid-old'));

    // Act
    index.remember(key('a'), 4, 'a', cluster('a', false), withPod('basic-pd-0', 'uid-new'));

    // Assess
    expect(index.tls(key('a'), 4)).toBe(false);
    expect(index.identity(key('a'), 4, { kind: 'Pod', namespace: 'demo', name: 'basic-pd-0' })?.uid).toBe('uid-new');
    expect(index.identity(key('a'), 3, { kind: 'Pod', namespace: 'demo', name: 'basic-pd-0' })).toBeUndefined();
  });
});

describe('ObservedIndex keeps the recent Events a step read, for that step only', () => {
  /** A read of the recent Events that counts its calls and fails while `failing` is set. */
  const reader = () => {
    const calls = { n: 0, failing: false };
    const read = async (): Promise<Set<string>> => {
      calls.n++;
      if (calls.failing) throw new Error('list Events: 503');
      return new Set(['FailedScaleIn\nrefused']);
    };
    return { calls, read };
  };

  it.each([
    { name: 'the same step reads once and shares the set', fences: [5, 5, 5], reads: 1 },
    { name: 'a new step (another fence) reads again', fences: [5, 6], reads: 2 },
    { name: 'a step whose observation is not kept reads every time', fences: [9, 9], reads: 2 },
  ])('$name', async ({ fences, reads }) => {
    // Prepare
    const index = new ObservedIndex();
    const { calls, read } = reader();
    const sets: Set<string>[] = [];

    // Act
    // Each step observes once (fence 9's observation is not kept), then records its Events.
    let observed: number | undefined;
    for (const fence of fences) {
      if (fence !== 9 && fence !== observed) index.remember(key('a'), fence, 'a', cluster('a'), NO_OWNED_OBJECTS);
      observed = fence;
      sets.push(await index.recentEvents(key('a'), fence, read));
    }

    // Assess
    expect(calls.n).toBe(reads);
    expect(sets.every((s) => s.has('FailedScaleIn\nrefused'))).toBe(true);
  });

  it('a failed read is forgotten: the step\'s next Event reads again', async () => {
    // Prepare
    const index = new ObservedIndex();
    index.remember(key('a'), 5, 'a', cluster('a'), NO_OWNED_OBJECTS);
    const { calls, read } = reader();
    calls.failing = true;

    // Act
    const first = index.recentEvents(key('a'), 5, read);
    await expect(first).rejects.toThrow('503');
    calls.failing = false;
    const second = await index.recentEvents(key('a'), 5, read);

    // Assess
    expect(calls.n).toBe(2);
    expect(second.has('FailedScaleIn\nrefused')).toBe(true);
  });
});

describe('ObservedIndex keeps the unwatched reads of a step for the next step of its key only', () => {
  const reads = (service: string): KeptReads => ({
    Service: [{ apiVersion: 'v1', kind: 'Service', metadata: { name: service, namespace: 'demo', uid: `uid-${service}` } }],
    ConfigMap: [],
    volumes: { names: ['pv-1'], items: [{ apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv-1' } }] },
  });

  it('the step right after finds them; the same step, a later one and another key do not', () => {
    // Prepare
    const index = new ObservedIndex();

    // Act
    index.keep(key('a'), 7, reads('basic-pd'));

    // Assess
    expect(index.keptFor(key('a'), 8)?.Service.map((s) => s.metadata?.name)).toEqual(['basic-pd']);
    expect(index.keptFor(key('a'), 7)).toBeUndefined();
    expect(index.keptFor(key('a'), 9)).toBeUndefined();
    expect(index.keptFor(key('b'), 8)).toBeUndefined();
  });

  it('a step that writes one of the kinds drops them, and a forgotten cluster has none', () => {
    // Prepare
    const index = new ObservedIndex();
    index.keep(key('a'), 7, reads('basic-pd'));
    index.keep(key('b'), 7, reads('other-pd'));

    // Act
    index.dropKept(key('a'));
    index.forget(key('b'));

    // Assess
    expect(index.keptFor(key('a'), 8)).toBeUndefined();
    expect(index.keptFor(key('b'), 8)).toBeUndefined();
  });

  it('keeping again replaces, and at most maxKept keys are kept, the least recently kept going first', () => {
    // Prepare
    const index = new ObservedIndex(10, 2);

    // Act
    index.keep(key('a'), 1, reads('a-1'));
    index.keep(key('b'), 1, reads('b-1'));
    index.keep(key('a'), 2, reads('a-2'));
    index.keep(key('c'), 1, reads('c-1'));

    // Assess
    expect(index.keptFor(key('a'), 3)?.Service[0]?.metadata?.name).toBe('a-2');
    expect(index.keptFor(key('b'), 2)).toBeUndefined();
    expect(index.keptFor(key('c'), 2)?.Service[0]?.metadata?.name).toBe('c-1');
  });

  it('by default it keeps fewer clusters than identities; a cap of 0 keeps none, a negative or fractional one is refused', () => {
    // Prepare
    const none = new ObservedIndex(10, 0);

    // Act
    none.keep(key('a'), 1, reads('a-1'));

    // Assess
    expect(new ObservedIndex().maxKept).toBe(DEFAULT_KEPT_CLUSTERS);
    expect(new ObservedIndex(10).maxKept).toBe(10);
    expect(none.keptFor(key('a'), 2)).toBeUndefined();
    expect(() => new ObservedIndex(10, -1)).toThrow(TerminalError);
    expect(() => new ObservedIndex(10, 0.5)).toThrow(TerminalError);
  });
});
