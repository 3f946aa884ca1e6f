import { describe, expect, it } from '@jest/globals';
import { isLosslessNumber } from 'lossless-json';
import { asId, asStringList, checkId, idNumber, keepDigits, parseLossless, stringifyLossless } from '../../lib/components/json.js';
import { leaderCountFromMetrics } from '../../lib/components/tikv.js';
import { proxyPath, type Endpoint } from '../../lib/components/transport.js';
import { clusterDnsName, clusterOf } from '../../lib/components/direct.js';
import { callTimeoutMs } from '../../lib/kube/http.js';
import { TerminalError, TransientError } from '../../lib/platform/errors.js';
import { goDurationMs, toConfig, toMembers, toStore } from '../../lib/pd/parse.js';

const SERVICE: Endpoint = { type: 'service', namespace: 'demo', service: 'basic-pd', port: 2379 };
const POD: Endpoint = { type: 'pod', namespace: 'demo', pod: 'basic-tikv-0', subdomain: 'basic-tikv-peer', port: 20180 };

describe('lossless ids', () => {
  it.each([
    { name: 'above 2^64/2', text: '{"id":11120000000000000001}', id: '11120000000000000001' },
    { name: '2^53 + 1', text: '{"id":9007199254740993}', id: '9007199254740993' },
    { name: 'the largest uint64', text: '{"id":18446744073709551615}', id: '18446744073709551615' },
    { name: 'an id sent as a string', text: '{"id":"42"}', id: '42' },
  ])('an id $name is read digit for digit', ({ text, id }) => {
    expect(asId((parseLossless(text, 't') as { id: unknown }).id, 't')).toBe(id);
  });

  it('every number, at any depth, keeps its digits as written; everything else parses as JSON does', () => {
    const parsed = parseLossless('{"a":[1.50,-0,1e400,{"b":18446744073709551615}],"s":"12","t":true,"n":null}', 't') as { a: [unknown, unknown, unknown, { b: unknown }]; s: unknown; t: unknown; n: unknown };
    expect([parsed.a[0], parsed.a[1], parsed.a[2], parsed.a[3].b].map((v) => (isLosslessNumber(v) ? v.toString() : v))).toEqual(['1.50', '-0', '1e400', '18446744073709551615']);
    expect([parsed.s, parsed.t, parsed.n]).toEqual(['12', true, null]);
  });

  it('a runtime whose JSON.parse gives no number source text is refused, not trusted with rounded ids', () => {
    expect(() => keepDigits('member_id', 12345678901234567000)).toThrow(TerminalError);
    expect(keepDigits('name', 'pd-0')).toBe('pd-0');
  });

  it('an answer that is not JSON is a transient error naming the call', () => {
    expect(() => parseLossless('{"members":[', 'read PD members')).toThrow(/read PD members: the answer is not JSON/);
    expect(() => parseLossless('{"members":[', 'read PD members')).toThrow(TransientError);
  });

  it('an id is written back as a JSON number with the same digits', () => {
    expect(stringifyLossless({ store_id: idNumber('18446744073709551615', 't') })).toBe('{"store_id":18446744073709551615}');
  });

  it.each([
    { name: 'a path', id: '1/../2' },
    { name: 'a negative number', id: '-1' },
    { name: 'an empty string', id: '' },
    { name: 'more digits than a uint64 has', id: '123456789012345678901' },
  ])('an id that is $name is refused', ({ id }) => {
    expect(() => checkId(id, 't')).toThrow(TerminalError);
  });

  it('a missing member id means the answer is not a member list', () => {
    expect(() => toMembers(parseLossless('{"members":[{"name":"a"}]}', 't'))).toThrow(TransientError);
  });

  it('members without a leader have no leader field', () => {
    expect(toMembers(parseLossless('{"members":[],"leader":{}}', 't'))).toEqual({ members: [] });
  });

  it('a store with missing status fields reads zeros and empty strings', () => {
    expect(toStore(parseLossless('{"store":{"id":1,"state_name":"Offline"}}', 't'))).toMatchObject({ id: '1', stateName: 'Offline', leaderCount: 0, capacity: '', labels: [] });
  });

  it.each([
    { name: 'a comma string', value: 'zone, host', list: ['zone', 'host'] },
    { name: 'an empty string', value: '', list: [] },
    { name: 'a JSON list', value: ['zone'], list: ['zone'] },
  ])('location labels as $name', ({ value, list }) => {
    expect(asStringList(value)).toEqual(list);
  });
});

describe('TiKV leader count from Prometheus text', () => {
  it.each([
    { name: 'the leader sample', text: 'tikv_raftstore_region_count{type="region"} 30\ntikv_raftstore_region_count{type="leader"} 12\n', count: 12 },
    { name: 'a sample with more labels and a timestamp', text: 'tikv_raftstore_region_count{instance="a",type="leader"} 7 1700000000000\n', count: 7 },
    { name: 'a float value', text: 'tikv_raftstore_region_count{type="leader"} 3e+00\n', count: 3 },
    { name: 'no leader sample', text: 'tikv_raftstore_region_count{type="region"} 30\n', count: undefined },
    { name: 'a label that only ends in "leader"', text: 'tikv_raftstore_region_count{subtype="leader"} 9\n', count: undefined },
  ])('$name', ({ text, count }) => {
    expect(leaderCountFromMetrics(text)).toBe(count);
  });
});

describe('addressing', () => {
  it.each([
    { name: 'a service through the proxy', endpoint: SERVICE, path: '/api/v1/namespaces/demo/services/basic-pd:2379/proxy' },
    { name: 'a pod through the proxy', endpoint: POD, path: '/api/v1/namespaces/demo/pods/basic-tikv-0:20180/proxy' },
    { name: 'an https service through the proxy (scheme prefix)', endpoint: { ...SERVICE, scheme: 'https' as const }, path: '/api/v1/namespaces/demo/services/https:basic-pd:2379/proxy' },
    { name: 'an https pod through the proxy (scheme prefix)', endpoint: { ...POD, scheme: 'https' as const }, path: '/api/v1/namespaces/demo/pods/https:basic-tikv-0:20180/proxy' },
    { name: 'an explicit http endpoint needs no prefix', endpoint: { ...SERVICE, scheme: 'http' as const }, path: '/api/v1/namespaces/demo/services/basic-pd:2379/proxy' },
  ])('$name', ({ endpoint, path }) => {
    expect(proxyPath(endpoint)).toBe(path);
  });

  it.each([
    { name: 'a service by its cluster DNS name', endpoint: SERVICE, domain: undefined, host: 'basic-pd.demo.svc' },
    { name: 'a pod under its headless service', endpoint: POD, domain: undefined, host: 'basic-tikv-0.basic-tikv-peer.demo.svc' },
    { name: 'a service with a cluster domain', endpoint: SERVICE, domain: 'cluster.local', host: 'basic-pd.demo.svc.cluster.local' },
  ])('direct mode names $name as TiDB Operator does', ({ endpoint, domain, host }) => {
    expect(clusterDnsName(endpoint, domain)).toBe(host);
  });

  it.each([
    { name: 'PD\'s client service', endpoint: SERVICE, cluster: 'basic' },
    { name: 'a TiKV pod under its peer service', endpoint: POD, cluster: 'basic' },
    { name: 'a Pump pod (its headless service has no -peer)', endpoint: { type: 'pod' as const, namespace: 'demo', pod: 'my-db-pump-0', subdomain: 'my-db-pump', port: 8250 }, cluster: 'my-db' },
    { name: "a PD microservice's client Service (the primary transfer)", endpoint: { type: 'service' as const, namespace: 'demo', service: 'my-db-tso', port: 2379 }, cluster: 'my-db' },
  ])('the client certificate of $name is its TidbCluster\'s', ({ endpoint, cluster }) => {
    expect(clusterOf(endpoint)).toBe(cluster);
  });
});

describe('call budget', () => {
  it.each([
    { name: 'without a deadline the per-call timeout applies', budget: { timeoutMs: 5000 }, nowMs: 0, timeout: 5000 },
    { name: 'a near deadline shortens it', budget: { timeoutMs: 5000, deadlineAtMs: 1200 }, nowMs: 1000, timeout: 200 },
    { name: 'a far deadline does not lengthen it', budget: { timeoutMs: 5000, deadlineAtMs: 60_000 }, nowMs: 0, timeout: 5000 },
  ])('$name', ({ budget, nowMs, timeout }) => {
    expect(callTimeoutMs(budget, nowMs, 't')).toBe(timeout);
  });

  it('no time left is a TransientError before any request', () => {
    expect(() => callTimeoutMs({ timeoutMs: 5000, deadlineAtMs: 1000 }, 1000, 't')).toThrow(TransientError);
  });
});

describe('PD config: max-store-down-time', () => {
  it.each([
    { name: "PD's default", text: '30m0s', ms: 30 * 60_000 },
    { name: 'hours, minutes and seconds', text: '1h30m0s', ms: 90 * 60_000 },
    { name: 'fractions and milliseconds', text: '1.5s500ms', ms: 2_000 },
  ])('$name ($text) is read in ms', ({ text, ms }) => {
    expect(goDurationMs(text)).toBe(ms);
    expect(toConfig({ replication: { 'max-replicas': 3 }, schedule: { 'max-store-down-time': text } }).schedule).toEqual({ maxStoreDownTimeMs: ms });
  });

  it.each([{ text: '30' }, { text: '30 m' }, { text: '' }, { text: 'm' }])('"$text" is not a duration: no schedule is reported', ({ text }) => {
    expect(goDurationMs(text)).toBeUndefined();
    expect(toConfig({ replication: {}, schedule: { 'max-store-down-time': text } }).schedule).toBeUndefined();
  });
});
