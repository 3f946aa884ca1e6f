/**
 * The small rules the simulated TiDB processes are built on: seeded randomness, image tags as
 * versions, Go-shaped durations and uint64 parsing, which container runs which component, and
 * discovery's desired PD replica count.
 */
import { describe, expect, it } from '@jest/globals';
import { goDuration, parseGoDuration, parseUint64 } from '../../lib/sim/tidb/http.js';
import { pdDesiredReplicas } from '../../lib/sim/tidb/discovery.js';
import { resolveKnobs } from '../../lib/sim/tidb/knobs.js';
import { componentOf } from '../../lib/sim/tidb/pod-info.js';
import { Rng } from '../../lib/sim/tidb/rng.js';
import { imageRepository, imageTag, isAtLeast } from '../../lib/sim/tidb/version.js';

describe('seeded randomness', () => {
  it('repeats the same draws for the same seed and differs for another', () => {
    // Prepare
    const draw = (seed: number) => {
      const rng = new Rng(seed);
      return [rng.next(), rng.uint64AboveSafe(), rng.uuid()];
    };
    // Act
    const [a, b, c] = [draw(5), draw(5), draw(6)];
    // Assess
    expect(b).toEqual(a);
    expect(c).not.toEqual(a);
  });

  it('draws PD member IDs above 2^53 and within uint64', () => {
    // Prepare
    const rng = new Rng(1);
    // Act
    const ids = Array.from({ length: 1000 }, () => BigInt(rng.uint64AboveSafe()));
    // Assess
    expect(ids.every((id) => id > 2n ** 53n && id < 2n ** 64n)).toBe(true);
  });
});

describe('versions', () => {
  it.each([
    { name: 'a release tag', image: 'pingcap/pd:v8.5.2', min: 'v8.5.2', atLeast: true },
    { name: 'an older patch', image: 'pingcap/pd:v8.5.1', min: 'v8.5.2', atLeast: false },
    { name: 'a pre-release counts as its release', image: 'pingcap/tiflash:v5.1.2-dev12', min: 'v5.1.2', atLeast: true },
    { name: 'latest is newest', image: 'pingcap/pd:latest', min: 'v9.0.0', atLeast: true },
    { name: 'no tag is latest', image: 'pingcap/pd', min: 'v9.0.0', atLeast: true },
    { name: 'a registry host is not a tag', image: 'localhost:5000/pingcap/pd:v3.0.0', min: 'v4.0.0', atLeast: false },
  ])('$name', ({ image, min, atLeast }) => {
    // Prepare, Act
    const result = isAtLeast(imageTag(image), min);
    // Assess
    expect(result).toBe(atLeast);
  });

  it('strips the registry host from a repository', () => {
    // Prepare, Act, Assess
    expect(imageRepository('gcr.io/pingcap/tikv:v7.5.0')).toBe('pingcap/tikv');
    expect(imageRepository('pingcap/tikv:v7.5.0')).toBe('pingcap/tikv');
  });
});

describe('container recognition', () => {
  it.each([
    { name: 'PD', container: { image: 'pingcap/pd:v7.5.0' }, component: 'pd' },
    { name: 'TiKV from another registry', container: { image: 'hub.example.com/pingcap/tikv:v7.5.0' }, component: 'tikv' },
    { name: 'discovery by its command', container: { image: 'pingcap/tidb-operator:v1.6.0', command: ['/usr/local/bin/tidb-discovery'] }, component: 'discovery' },
    { name: 'the operator itself is not simulated', container: { image: 'pingcap/tidb-operator:v1.6.0', command: ['/usr/local/bin/tidb-controller-manager'] }, component: undefined },
    { name: 'Pump from tidb-binlog', container: { image: 'pingcap/tidb-binlog:v7.5.0', command: ['/bin/sh', '-c', '/pump -config=x'] }, component: 'pump' },
    { name: 'a sidecar', container: { image: 'busybox:1.36' }, component: undefined },
  ])('$name', ({ container, component }) => {
    // Prepare, Act, Assess
    expect(componentOf(container)).toBe(component);
  });
});

describe('Go formats', () => {
  it.each([
    { name: '30 minutes', ms: 30 * 60_000, text: '30m0s' },
    { name: 'one and a half hours', ms: 90 * 60_000, text: '1h30m0s' },
    { name: 'seconds', ms: 1500, text: '1.5s' },
  ])('prints and reads $name', ({ ms, text }) => {
    // Prepare, Act, Assess
    expect(goDuration(ms)).toBe(text);
    expect(parseGoDuration(text)).toBe(ms);
  });

  it.each([
    { name: 'a uint64 above 2^53', segment: '12891273174085095651', ok: '12891273174085095651' },
    { name: 'leading zeros', segment: '007', ok: '7' },
    { name: 'not a number', segment: 'wrong-id', error: 'strconv.ParseUint: parsing "wrong-id": invalid syntax' },
    { name: 'past uint64', segment: '18446744073709551616', error: 'strconv.ParseUint: parsing "18446744073709551616": value out of range' },
  ])('parses $name as Go’s ParseUint does', ({ segment, ok, error }) => {
    // Prepare, Act
    const parsed = parseUint64(segment);
    // Assess
    expect(parsed).toEqual(ok !== undefined ? { value: ok } : { error });
  });
});

describe('discovery’s desired PD replicas', () => {
  it.each([
    { name: 'spec replicas', tc: { spec: { pd: { replicas: 3 } } }, desired: 3 },
    { name: 'plus failure members already deleted', tc: { spec: { pd: { replicas: 3 } }, status: { pd: { failureMembers: { a: { memberDeleted: true }, b: { memberDeleted: false } } } } }, desired: 4 },
    { name: 'no PD', tc: { spec: {} }, desired: 0 },
  ])('$name', ({ tc, desired }) => {
    // Prepare, Act, Assess
    expect(pdDesiredReplicas({ metadata: {}, ...tc })).toBe(desired);
  });
});

describe('knobs', () => {
  it('keeps documented defaults and refuses negative overrides', () => {
    // Prepare, Act
    const knobs = resolveKnobs({ storeDrainPerMinute: 60 });
    // Assess
    expect([knobs.storeDrainPerMinute, knobs.regionsPerStore, knobs.tiflashReplicas, knobs.metricsFlushMs, knobs.leaderEvictionMs, knobs.maxStoreDownTimeMs, knobs.podStartupMs, knobs.nodes]).toEqual([60, 90, 0, 10_000, 10_000, 1_800_000, 5000, 3]);
    expect(() => resolveKnobs({ pdTickMs: -1 })).toThrow('pdTickMs');
  });
});
