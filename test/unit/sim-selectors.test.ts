/**
 * Label selectors in the query-string and object forms, and field selectors, with the API server's
 * matching rules (`!=` and `notin` match a missing label) and its 400 messages for bad input.
 */

import { describe, it, expect } from '@jest/globals';
import {
  labelSelectorRequirements,
  matchesFieldSelector,
  matchesLabels,
  matchLabelSelector,
  parseFieldSelector,
  parseLabelSelector,
} from '../../lib/sim/selectors.js';
import { apiErrorOf } from '../support/api-error.js';

const pd = { 'app.kubernetes.io/component': 'pd', 'app.kubernetes.io/instance': 'basic', tier: 'db' };

describe('label selector (query-string form)', () => {
  it.each([
    { name: 'equality matches', selector: 'tier=db', labels: pd, want: true },
    { name: 'double equals matches', selector: 'tier==db', labels: pd, want: true },
    { name: 'equality on another value does not match', selector: 'tier=web', labels: pd, want: false },
    { name: 'inequality matches a different value', selector: 'tier!=web', labels: pd, want: true },
    { name: 'inequality matches a missing label', selector: 'zone!=a', labels: pd, want: true },
    { name: 'in matches one of the values', selector: 'app.kubernetes.io/component in (pd, tikv)', labels: pd, want: true },
    { name: 'in does not match a missing label', selector: 'zone in (a,b)', labels: pd, want: false },
    { name: 'notin excludes the listed values', selector: 'app.kubernetes.io/component notin (pd)', labels: pd, want: false },
    { name: 'notin matches a missing label', selector: 'zone notin (a)', labels: pd, want: true },
    { name: 'a bare key requires the label', selector: 'tier', labels: pd, want: true },
    { name: 'a bare key fails without the label', selector: 'zone', labels: pd, want: false },
    { name: '!key requires the label to be absent', selector: '!zone', labels: pd, want: true },
    { name: '!key fails when the label exists', selector: '!tier', labels: pd, want: false },
    { name: 'all comma-separated requirements must hold', selector: 'tier=db,app.kubernetes.io/instance=basic,!zone', labels: pd, want: true },
    { name: 'one failing requirement fails the selector', selector: 'tier=db, app.kubernetes.io/instance=other', labels: pd, want: false },
    { name: 'whitespace around tokens is tolerated', selector: '  tier  =  db ,  zone notin ( a , b )  ', labels: pd, want: true },
    { name: 'an empty selector matches everything', selector: '', labels: pd, want: true },
    { name: 'an empty selector matches an object without labels', selector: '', labels: undefined, want: true },
    { name: 'in and notin can be values', selector: 'tier in (in, notin, db)', labels: pd, want: true },
    { name: 'an empty value matches an empty label', selector: 'tier=', labels: { tier: '' }, want: true },
    { name: 'gt compares integers', selector: 'replicas>2', labels: { replicas: '3' }, want: true },
  ])('$name', ({ selector, labels, want }) => {
    const requirements = parseLabelSelector(selector);

    expect(matchesLabels(requirements, labels)).toBe(want);
  });

  it('requirements are normalised: = to In, != to NotIn, values sorted and unique', () => {
    expect(parseLabelSelector('b!=x,a in (z,y,z),!c')).toEqual([
      { key: 'b', operator: 'NotIn', values: ['x'] },
      { key: 'a', operator: 'In', values: ['y', 'z'] },
      { key: 'c', operator: 'DoesNotExist', values: [] },
    ]);
  });

  it.each([
    { name: 'a value set without parentheses', selector: 'a in b', message: "unable to parse requirement: found 'b' expected: '('" },
    { name: 'two keys without a comma', selector: 'a b', message: "unable to parse requirement: found 'b', expected: '=', '!=', '==', 'in', notin'" },
    { name: 'a value after a negated key', selector: '!a b', message: "found 'b', expected: ',' or 'end of string'" },
    { name: 'a trailing comma', selector: 'a=b,', message: "found '', expected: identifier after ','" },
    { name: 'a leading operator', selector: '=b', message: "found '=', expected: !, identifier, or 'end of string'" },
    { name: 'an unknown operator word', selector: 'a is b', message: "unable to parse requirement: found 'is', expected: '=', '!=', '==', 'in', notin'" },
    { name: 'an unclosed value set', selector: 'a in (x', message: "unable to parse requirement: found '', expected: ',' or ')'" },
    { name: 'values without a comma between them', selector: 'a in (x y)', message: "unable to parse requirement: found 'y', expected: ',' or ')'" },
    { name: 'a double negation', selector: '!!a', message: "unable to parse requirement: found '!', expected: identifier" },
    {
      name: 'an invalid key',
      selector: 'bad_key_=x',
      message:
        "unable to parse requirement: <nil>: Invalid value: \"bad_key_\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    },
    {
      name: 'an invalid value',
      selector: 'a=-x',
      message:
        "unable to parse requirement: values[0][a]: Invalid value: \"-x\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    },
  ])('bad syntax is 400 BadRequest: $name', ({ selector, message }) => {
    const err = apiErrorOf(() => parseLabelSelector(selector));

    expect(err.code).toBe(400);
    expect(err.reason).toBe('BadRequest');
    expect(err.message).toBe(message);
  });
});

describe('label selector (object form)', () => {
  it.each([
    { name: 'matchLabels must all match', selector: { matchLabels: { tier: 'db', 'app.kubernetes.io/component': 'pd' } }, want: true },
    { name: 'a differing matchLabels value fails', selector: { matchLabels: { tier: 'web' } }, want: false },
    { name: 'In matches a listed value', selector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['db', 'web'] }] }, want: true },
    { name: 'NotIn fails on a listed value', selector: { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['db'] }] }, want: false },
    { name: 'Exists requires the key', selector: { matchExpressions: [{ key: 'tier', operator: 'Exists' }] }, want: true },
    { name: 'DoesNotExist fails when the key exists', selector: { matchExpressions: [{ key: 'tier', operator: 'DoesNotExist' }] }, want: false },
    { name: 'matchLabels and matchExpressions combine with AND', selector: { matchLabels: { tier: 'db' }, matchExpressions: [{ key: 'zone', operator: 'Exists' }] }, want: false },
    { name: 'an empty selector selects everything', selector: {}, want: true },
    { name: 'a missing selector selects nothing', selector: undefined, want: false },
    { name: 'a null selector selects nothing', selector: null, want: false },
  ])('$name', ({ selector, want }) => {
    expect(matchLabelSelector(selector, pd)).toBe(want);
  });

  it.each([
    { name: 'an unknown operator', selector: { matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] }, message: '"Gt" is not a valid label selector operator' },
    { name: 'In without values', selector: { matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }, message: "values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty" },
    { name: 'Exists with values', selector: { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }, message: 'values: Invalid value: []string{"x"}: values set must be empty for exists and does not exist' },
  ])('a malformed object selector is 400: $name', ({ selector, message }) => {
    const err = apiErrorOf(() => labelSelectorRequirements(selector));

    expect(err.code).toBe(400);
    expect(err.message).toBe(message);
  });
});

describe('field selector', () => {
  const pod = { metadata: { name: 'basic-pd-0', namespace: 'tidb' }, spec: { nodeName: 'node-1' }, status: { phase: 'Running' } };
  const event = { metadata: { name: 'e1', namespace: 'tidb' }, involvedObject: { kind: 'Pod', name: 'basic-pd-0', uid: 'u1', namespace: 'tidb' }, source: { component: 'kubelet' } };

  it.each([
    { name: 'metadata.name matches by equality', kind: 'Pod', selector: 'metadata.name=basic-pd-0', obj: pod, want: true },
    { name: 'metadata.namespace with == matches', kind: 'Pod', selector: 'metadata.namespace==tidb', obj: pod, want: true },
    { name: '!= excludes the value', kind: 'Pod', selector: 'metadata.name!=basic-pd-0', obj: pod, want: false },
    { name: 'pods select by spec.nodeName', kind: 'Pod', selector: 'spec.nodeName=node-1', obj: pod, want: true },
    { name: 'an unset field reads as empty (unscheduled pods)', kind: 'Pod', selector: 'spec.nodeName=', obj: { metadata: { name: 'p' } }, want: true },
    { name: 'pods select by status.phase', kind: 'Pod', selector: 'status.phase!=Running,status.phase!=Succeeded', obj: pod, want: false },
    { name: 'events select by involvedObject', kind: 'Event', selector: 'involvedObject.kind=Pod,involvedObject.name=basic-pd-0,involvedObject.uid=u1,involvedObject.namespace=tidb', obj: event, want: true },
    { name: 'events select by source component', kind: 'Event', selector: 'source=kubelet', obj: event, want: true },
    { name: 'an escaped comma is part of the value', kind: 'Pod', selector: 'metadata.name=a\\,b', obj: { metadata: { name: 'a,b' } }, want: true },
    { name: 'an empty selector matches everything', kind: 'Pod', selector: '', obj: pod, want: true },
  ])('$name', ({ kind, selector, obj, want }) => {
    expect(matchesFieldSelector(parseFieldSelector(kind, selector), obj)).toBe(want);
  });

  it.each([
    { name: 'an unsupported field', kind: 'Pod', selector: 'spec.containers=x', message: 'field label not supported: spec.containers' },
    { name: 'a pod field on a ConfigMap', kind: 'ConfigMap', selector: 'status.phase=Running', message: 'field label not supported: status.phase' },
    { name: 'an event field on a Pod', kind: 'Pod', selector: 'involvedObject.name=x', message: 'field label not supported: involvedObject.name' },
    { name: 'a term without an operator', kind: 'Pod', selector: 'metadata.name', message: "invalid selector: 'metadata.name'; can't understand 'metadata.name'" },
    { name: 'an unescaped = in a value', kind: 'Pod', selector: 'metadata.name=a=b', message: 'invalid field selector: unescaped character in value: =' },
  ])('a bad field selector is 400: $name', ({ kind, selector, message }) => {
    const err = apiErrorOf(() => parseFieldSelector(kind, selector));

    expect(err.code).toBe(400);
    expect(err.reason).toBe('BadRequest');
    expect(err.message).toBe(message);
  });
});
