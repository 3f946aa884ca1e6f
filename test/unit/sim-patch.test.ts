/**
 * PATCH bodies as the API server applies them: RFC 7386 merge patches, RFC 6902 JSON patches, and
 * the Content-Type dispatch with the server's status codes for bodies it cannot use.
 */

import { describe, it, expect } from '@jest/globals';
import { applyJsonPatch, applyMergePatch, applyPatch } from '../../lib/sim/patch.js';
import { apiErrorOf } from '../support/api-error.js';

const configMap = () => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'cfg', labels: { app: 'db' } },
  data: { a: '1', b: '2' },
  list: [1, 2, 3],
});

describe('JSON merge patch (RFC 7386)', () => {
  const base = () => ({ kind: 'ConfigMap', data: { a: '1', b: '2' }, list: [1, 2, 3] });

  it.each([
    { name: 'a null removes the key', patch: { data: { a: null } }, want: { kind: 'ConfigMap', data: { b: '2' }, list: [1, 2, 3] } },
    { name: 'objects merge recursively', patch: { data: { c: '3' } }, want: { kind: 'ConfigMap', data: { a: '1', b: '2', c: '3' }, list: [1, 2, 3] } },
    { name: 'arrays are replaced, not merged', patch: { list: [9] }, want: { kind: 'ConfigMap', data: { a: '1', b: '2' }, list: [9] } },
    { name: 'a scalar replaces an object', patch: { data: 'x' }, want: { kind: 'ConfigMap', data: 'x', list: [1, 2, 3] } },
    { name: 'an object replaces a scalar', patch: { kind: { x: 1 } }, want: { kind: { x: 1 }, data: { a: '1', b: '2' }, list: [1, 2, 3] } },
    { name: 'nulls inside a new object are dropped', patch: { extra: { a: 1, b: null } }, want: { ...base(), extra: { a: 1 } } },
    { name: 'a null for a missing key changes nothing', patch: { missing: null }, want: base() },
  ])('$name', ({ patch, want }) => {
    const result = applyMergePatch(base(), patch);

    expect(result).toEqual(want);
  });

  it('a patch that is not an object replaces the whole document', () => {
    expect(applyMergePatch(configMap(), [1, 2])).toEqual([1, 2]);
  });

  it('the target is never mutated and the result shares nothing with it', () => {
    const target = configMap();
    const before = structuredClone(target);

    const result = applyMergePatch(target, { metadata: { labels: { app: 'x' } } }) as ReturnType<typeof configMap>;
    result.data.a = 'changed';

    expect(target).toEqual(before);
  });
});

describe('JSON patch (RFC 6902)', () => {
  const doc = () => ({ metadata: { name: 'x', annotations: { 'a/b': '1', 'c~d': '2' } }, items: ['a', 'b', 'c'] });

  it.each([
    { name: 'add sets a new key', ops: [{ op: 'add', path: '/metadata/uid', value: 'u1' }], path: ['metadata', 'uid'], want: 'u1' },
    { name: 'add inserts into an array at the index', ops: [{ op: 'add', path: '/items/1', value: 'z' }], path: ['items'], want: ['a', 'z', 'b', 'c'] },
    { name: '"-" appends to an array', ops: [{ op: 'add', path: '/items/-', value: 'z' }], path: ['items'], want: ['a', 'b', 'c', 'z'] },
    { name: 'remove deletes an array element', ops: [{ op: 'remove', path: '/items/0' }], path: ['items'], want: ['b', 'c'] },
    { name: 'replace changes a value', ops: [{ op: 'replace', path: '/metadata/name', value: 'y' }], path: ['metadata', 'name'], want: 'y' },
    { name: '~1 in a pointer is a slash', ops: [{ op: 'replace', path: '/metadata/annotations/a~1b', value: '9' }], path: ['metadata', 'annotations', 'a/b'], want: '9' },
    { name: '~0 in a pointer is a tilde', ops: [{ op: 'remove', path: '/metadata/annotations/c~0d' }], path: ['metadata', 'annotations'], want: { 'a/b': '1' } },
    { name: 'move takes the value from one path to another', ops: [{ op: 'move', from: '/metadata/name', path: '/metadata/alias' }], path: ['metadata'], want: { alias: 'x', annotations: { 'a/b': '1', 'c~d': '2' } } },
    { name: 'copy duplicates a value', ops: [{ op: 'copy', from: '/items/2', path: '/items/0' }], path: ['items'], want: ['c', 'a', 'b', 'c'] },
    { name: 'a passing test lets the next operation apply', ops: [{ op: 'test', path: '/items/0', value: 'a' }, { op: 'remove', path: '/items/0' }], path: ['items'], want: ['b', 'c'] },
  ])('$name', ({ ops, path, want }) => {
    const result = applyJsonPatch(doc(), ops);

    const value = path.reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], result);
    expect(value).toEqual(want);
  });

  it.each([
    { name: 'a failed test is 422 Invalid', ops: [{ op: 'test', path: '/metadata/name', value: 'other' }], detail: 'testing value /metadata/name failed: test failed' },
    { name: 'removing a missing key is 422', ops: [{ op: 'remove', path: '/metadata/nope' }], detail: 'unable to remove nonexistent key: nope: missing value' },
    { name: 'replacing a missing key is 422', ops: [{ op: 'replace', path: '/nope', value: 1 }], detail: 'replace operation does not apply: doc is missing key: /nope: missing value' },
    { name: 'adding under a missing parent is 422', ops: [{ op: 'add', path: '/a/b/c', value: 1 }], detail: 'add operation does not apply: doc is missing path: "/a/b/c": missing value' },
    { name: 'an index past the end is 422', ops: [{ op: 'add', path: '/items/7', value: 'z' }], detail: 'Unable to access invalid index: 7: invalid index referenced' },
    { name: 'a pointer without a leading slash is 422', ops: [{ op: 'remove', path: 'items' }], detail: 'JSON pointer must be empty or start with a "/": items' },
    { name: 'an unknown op is 422', ops: [{ op: 'frobnicate', path: '/items' }], detail: 'Unexpected kind: frobnicate' },
  ])('$name', ({ ops, detail }) => {
    const err = apiErrorOf(() => applyJsonPatch(doc(), ops));

    expect(err.code).toBe(422);
    expect(err.reason).toBe('Invalid');
    expect(err.message).toBe('the server rejected our request due to an error in our request');
    expect(err.details).toEqual({ causes: [{ message: detail }] });
  });

  it.each([
    { name: 'a body that is not an array is 400 BadRequest', body: { op: 'add' } },
    { name: 'an operation that is not an object is 400 BadRequest', body: ['add'] },
  ])('$name', ({ body }) => {
    const err = apiErrorOf(() => applyJsonPatch(doc(), body));

    expect(err.code).toBe(400);
    expect(err.reason).toBe('BadRequest');
  });

  it('a failing operation leaves the target as it was, even after earlier ones applied', () => {
    const target = doc();

    apiErrorOf(() => applyJsonPatch(target, [{ op: 'remove', path: '/items/0' }, { op: 'test', path: '/items/0', value: 'zzz' }]));

    expect(target).toEqual(doc());
  });

  it('the root pointer replaces the whole document', () => {
    expect(applyJsonPatch(doc(), [{ op: 'replace', path: '', value: { fresh: true } }])).toEqual({ fresh: true });
  });
});

describe('patch dispatch by Content-Type', () => {
  const deployment = () => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: { template: { spec: { containers: [{ name: 'a', image: 'a:1' }, { name: 'b', image: 'b:1' }] } } },
  });
  const containerPatch = { spec: { template: { spec: { containers: [{ name: 'b', image: 'b:2' }] } } } };

  it('a merge patch replaces a list wholesale', () => {
    const result = applyPatch('application/merge-patch+json', deployment(), containerPatch) as ReturnType<typeof deployment>;

    expect(result.spec.template.spec.containers).toEqual([{ name: 'b', image: 'b:2' }]);
  });

  it('a strategic merge patch merges containers by name, charset parameter and all', () => {
    const result = applyPatch('application/strategic-merge-patch+json; charset=utf-8', deployment(), containerPatch) as ReturnType<typeof deployment>;

    expect(result.spec.template.spec.containers).toEqual([
      { name: 'a', image: 'a:1' },
      { name: 'b', image: 'b:2' },
    ]);
  });

  it('a JSON patch body is dispatched to RFC 6902', () => {
    const result = applyPatch('application/json-patch+json', deployment(), [{ op: 'replace', path: '/metadata/name', value: 'web2' }]) as ReturnType<typeof deployment>;

    expect(result.metadata.name).toBe('web2');
  });

  it('a strategic merge patch on a TidbCluster is applied as a merge patch', () => {
    const tc = { apiVersion: 'pingcap.com/v1alpha1', kind: 'TidbCluster', metadata: { name: 'basic' }, spec: { pd: { replicas: 3, env: [{ name: 'A', value: '1' }] } } };

    const result = applyPatch('application/strategic-merge-patch+json', tc, { spec: { pd: { env: [{ name: 'B', value: '2' }] } } });

    expect(result).toEqual({ ...tc, spec: { pd: { replicas: 3, env: [{ name: 'B', value: '2' }] } } });
  });

  it.each([
    { name: 'an apply body is not a patch applyPatch takes (415; the server answers it as an apply)', contentType: 'application/apply-patch+yaml' },
    { name: 'plain JSON is 415', contentType: 'application/json' },
    { name: 'an empty Content-Type is 415', contentType: '' },
  ])('$name', ({ contentType }) => {
    const err = apiErrorOf(() => applyPatch(contentType, deployment(), {}));

    expect(err.code).toBe(415);
    expect(err.reason).toBe('UnsupportedMediaType');
    expect(err.message).toBe(
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json',
    );
  });

  it.each([
    { name: 'a merge patch body that is not an object is 400', contentType: 'application/merge-patch+json' },
    { name: 'a strategic merge patch body that is not an object is 400', contentType: 'application/strategic-merge-patch+json' },
  ])('$name', ({ contentType }) => {
    const err = apiErrorOf(() => applyPatch(contentType, deployment(), [1]));

    expect(err.code).toBe(400);
    expect(err.reason).toBe('BadRequest');
  });
});
