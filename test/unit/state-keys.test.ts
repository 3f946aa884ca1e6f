/**
 * The state table's key layout (docs/ARCHITECTURE.md, State) and the condition fragments, checked as pure data: the
 * integration suite proves the writes behave, this file pins the exact strings they send.
 */

import { describe, it, expect } from '@jest/globals';
import { TerminalError } from '../../lib/platform/errors.js';
import { and, fenceIs, heldByMe, leaseIsFree, writeInput } from '../../lib/state/conditions.js';
import { checkpointPk, clusterPk, deadlineId, historySk, parseClusterKey } from '../../lib/state/keys.js';

describe('state table keys', () => {
  it.each([
    {
      name: 'a cluster partition key is tc#<cluster>#<ns>#<name>',
      actual: () => clusterPk('eks-prod/tidb/basic'),
      expected: 'tc#eks-prod#tidb#basic',
    },
    {
      name: 'a deadline is the state item map entry <component>#<member>#<kind>',
      actual: () => deadlineId('tikv', 'basic-tikv-2', 'failover'),
      expected: 'tikv#basic-tikv-2#failover',
    },
    {
      name: 'a history sort key zero-pads time and sequence',
      actual: () => historySk(1767225600000, 42),
      expected: 'history#001767225600000#000000000042',
    },
    {
      name: 'an exporter checkpoint key is exporter#<cluster>#<resource>',
      actual: () => checkpointPk('eks-prod', 'tidbclusters'),
      expected: 'exporter#eks-prod#tidbclusters',
    },
  ])('$name', ({ actual, expected }) => {
    expect(actual()).toBe(expected);
  });

  it('history sort keys sort as text in time order, then sequence order', () => {
    const keys = [historySk(10_000, 1), historySk(9_999, 7), historySk(10_000, 2), historySk(100_000, 0)];

    const sorted = [...keys].sort();

    expect(sorted).toEqual([historySk(9_999, 7), historySk(10_000, 1), historySk(10_000, 2), historySk(100_000, 0)]);
  });

  it('a cluster key splits into cluster, namespace and name', () => {
    const parts = parseClusterKey('eks-prod/tidb/basic');

    expect(parts).toEqual({ k8sCluster: 'eks-prod', namespace: 'tidb', name: 'basic' });
  });

  it.each([
    { name: 'two parts', act: () => clusterPk('tidb/basic') },
    { name: 'four parts', act: () => clusterPk('eks/tidb/basic/extra') },
    { name: 'an empty part', act: () => clusterPk('eks//basic') },
    { name: 'a # inside a part', act: () => clusterPk('eks/ti#db/basic') },
    { name: 'a # inside a deadline part', act: () => deadlineId('tikv', 'a#b', 'failover') },
    { name: 'a negative time', act: () => historySk(-1, 0) },
    { name: 'a fractional sequence', act: () => historySk(1, 0.5) },
    { name: 'an empty checkpoint resource', act: () => checkpointPk('eks', '') },
  ])('a malformed key part is a TerminalError: $name', ({ act }) => {
    expect(act).toThrow(TerminalError);
  });
});

describe('state condition fragments', () => {
  it('fragments combine into one expression with the placeholders they use and no others', () => {
    const input = writeInput({
      update: 'SET #dirty = :true',
      values: { ':true': true },
      condition: and(heldByMe('step-a'), fenceIs(3)),
    });

    expect(input).toEqual({
      UpdateExpression: 'SET #dirty = :true',
      ConditionExpression: '(#leaseOwner = :owner) AND (#fence = :fence)',
      ExpressionAttributeNames: { '#dirty': 'dirty', '#leaseOwner': 'leaseOwner', '#fence': 'fence' },
      ExpressionAttributeValues: { ':true': true, ':owner': 'step-a', ':fence': 3 },
    });
  });

  it('a free lease means no owner or an expired one', () => {
    expect(leaseIsFree(1000).text).toBe('(attribute_not_exists(#leaseOwner)) OR (#leaseUntilMs <= :nowMs)');
  });

  it.each([
    { name: 'one placeholder bound to two values', act: () => and(fenceIs(1), fenceIs(2)) },
    { name: 'an unknown update attribute', act: () => writeInput({ update: 'SET #nope = :x', values: { ':x': 1 } }) },
  ])('an expression that would send the wrong request is refused before sending: $name', ({ act }) => {
    expect(act).toThrow(Error);
  });
});
