import { describe, expect, it } from '@jest/globals';

import type { JsonPath } from '../../lib/local/scenario/jsonpath.js';
import { compileJsonPath, jsonPathEquals, jsonPathGreaterThan, jsonPathValue, selectJsonPath } from '../../lib/local/scenario/jsonpath.js';

const TC = {
  apiVersion: 'pingcap.com/v1alpha1',
  kind: 'TidbCluster',
  metadata: { name: 'basic', namespace: 'demo', annotations: { 'tidb.pingcap.com/force-upgrade': 'true' } },
  spec: { pd: { replicas: 3 } },
  status: {
    pd: {
      phase: 'Normal',
      synced: true,
      members: {
        'basic-pd-0': { name: 'basic-pd-0', id: '7340977823423423423', health: true },
        'basic-pd-1': { name: 'basic-pd-1', id: '12', health: false },
      },
      failureMembers: { 'basic-pd-1': { podName: 'basic-pd-1', memberDeleted: false } },
      statefulSet: { replicas: 3, readyReplicas: 2 },
    },
    conditions: [
      { type: 'Ready', status: 'False', reason: 'PDUnhealthy' },
      { type: 'Synced', status: 'True' },
    ],
  },
};

function compiled(source: string): JsonPath {
  const result = compileJsonPath(source);
  if (!result.ok) throw new Error(result.error);
  return result.path;
}

describe('a JSONPath into a TidbCluster has one value: null for no match, the match, or the list of matches', () => {
  it.each<{ name: string; path: string; value: unknown }>([
    { name: 'a field chain from $', path: '$.status.pd.phase', value: 'Normal' },
    { name: 'a path without $', path: '.status.pd.phase', value: 'Normal' },
    { name: 'a path without $ or a leading dot', path: 'status.pd.phase', value: 'Normal' },
    { name: 'a kubectl-style braced path', path: '{.spec.pd.replicas}', value: 3 },
    { name: 'a quoted member name', path: ".status.pd.members['basic-pd-0'].health", value: true },
    { name: 'a double-quoted member name', path: '$.status.pd.members["basic-pd-1"].health', value: false },
    { name: 'a dotted name with dashes', path: '$.status.pd.members.basic-pd-0.id', value: '7340977823423423423' },
    { name: 'an annotation key with dots and a slash', path: "$.metadata.annotations['tidb.pingcap.com/force-upgrade']", value: 'true' },
    { name: 'a filter on a list', path: "$.status.conditions[?(@.type=='Ready')].status", value: 'False' },
    { name: 'a filter with double quotes and spaces', path: '$.status.conditions[?( @.type == "Synced" )].status', value: 'True' },
    { name: 'a filter on the values of a mapping', path: '$.status.pd.members[?(@.health==false)].name', value: 'basic-pd-1' },
    { name: 'a != filter', path: "$.status.conditions[?(@.type!='Ready')].type", value: 'Synced' },
    { name: 'a filter on a number', path: '$.status.pd[?(@.replicas==3)].readyReplicas', value: 2 },
    { name: 'an index', path: '$.status.conditions[1].type', value: 'Synced' },
    { name: 'a negative index counts from the end', path: '$.status.conditions[-1].type', value: 'Synced' },
    { name: 'a wildcard with several matches gives the list', path: '$.status.conditions[*].type', value: ['Ready', 'Synced'] },
    { name: 'a dot wildcard over a mapping', path: '$.status.pd.members.*.health', value: [true, false] },
    { name: 'a whole object', path: "$.status.pd.failureMembers['basic-pd-1']", value: { podName: 'basic-pd-1', memberDeleted: false } },
    { name: 'a missing field is null', path: '$.status.tikv.phase', value: null },
    { name: 'a filter matching nothing is null', path: "$.status.conditions[?(@.type=='FailedValidation')].status", value: null },
    { name: 'an index past the end is null', path: '$.status.conditions[5]', value: null },
    { name: 'a field of a list is null', path: '$.status.conditions.type', value: null },
    { name: '$ alone is the whole object', path: '$', value: TC },
  ])('$name', ({ path, value }) => {
    expect(jsonPathValue(compiled(path), TC)).toEqual(value);
  });

  it('an element without the compared field matches neither == nor !=', () => {
    const list = [{ type: 'Ready' }, { other: 1 }];
    expect(selectJsonPath(compiled("$[?(@.type!='x')]"), list)).toEqual([{ type: 'Ready' }]);
  });
});

describe('equals compares as JSON, and no match equals null', () => {
  it.each<{ name: string; path: string; expected: unknown; equal: boolean }>([
    { name: 'the same string', path: '$.status.pd.phase', expected: 'Normal', equal: true },
    { name: 'a number is not its text', path: '$.spec.pd.replicas', expected: '3', equal: false },
    { name: 'objects regardless of key order', path: "$.status.pd.failureMembers['basic-pd-1']", expected: { memberDeleted: false, podName: 'basic-pd-1' }, equal: true },
    { name: 'no match equals null', path: '$.status.pd.leader', expected: null, equal: true },
    { name: 'a match is not null', path: '$.status.pd.phase', expected: null, equal: false },
    { name: 'several matches equal their list', path: '$.status.conditions[*].status', expected: ['False', 'True'], equal: true },
  ])('$name', ({ path, expected, equal }) => {
    expect(jsonPathEquals(compiled(path), TC, expected)).toBe(equal);
  });
});

describe('greaterThan compares integers exactly, digit strings included, and nothing else is above', () => {
  const root = { status: { ts: '463267823616000001', n: 3, text: 'abc', none: null } };
  it.each<{ name: string; path: string; bound: string; above: boolean }>([
    { name: 'a TSO string one above (beyond 2^53)', path: '$.status.ts', bound: '463267823616000000', above: true },
    { name: 'a TSO string equal is not above', path: '$.status.ts', bound: '463267823616000001', above: false },
    { name: 'a number', path: '$.status.n', bound: '2', above: true },
    { name: 'text is never above', path: '$.status.text', bound: '0', above: false },
    { name: 'null is never above', path: '$.status.none', bound: '-1', above: false },
    { name: 'no match is never above', path: '$.status.missing', bound: '-1', above: false },
  ])('$name', ({ path, bound, above }) => {
    expect(jsonPathGreaterThan(compiled(path), root, bound)).toBe(above);
  });
});

describe('a path outside the subset is rejected with what and where', () => {
  it.each<{ name: string; path: string; error: string }>([
    { name: 'an empty path', path: '', error: 'invalid JSONPath "": the path is empty at column 1' },
    { name: 'recursive descent', path: '$..name', error: 'invalid JSONPath "$..name": recursive descent (..) is not supported at column 3' },
    { name: 'a trailing dot', path: '$.status.', error: 'invalid JSONPath "$.status.": expected a field name after "." (end of path) at column 10' },
    { name: 'an unclosed bracket', path: '$.status.conditions[0', error: 'invalid JSONPath "$.status.conditions[0": expected "]" (end of path) at column 22' },
    { name: 'an unterminated string', path: "$.a['b]", error: 'invalid JSONPath "$.a[\'b]": unterminated string at column 5' },
    { name: 'a filter without a comparison', path: '$.a[?(@.b)]', error: 'invalid JSONPath "$.a[?(@.b)]": expected == or != in the filter at column 10' },
    { name: 'a filter with another operator', path: '$.a[?(@.b>1)]', error: 'invalid JSONPath "$.a[?(@.b>1)]": expected == or != in the filter at column 10' },
    { name: 'a filter with a bare word', path: '$.a[?(@.b==Ready)]', error: 'invalid JSONPath "$.a[?(@.b==Ready)]": expected a string, number, true, false or null at column 12' },
    { name: 'a slice', path: '$.a[0:2]', error: 'invalid JSONPath "$.a[0:2]": expected "]" at column 6' },
    { name: 'text after $', path: '$status', error: 'invalid JSONPath "$status": unexpected "s" at column 2' },
  ])('$name', ({ path, error }) => {
    expect(compileJsonPath(path)).toEqual({ ok: false, error });
  });
});
