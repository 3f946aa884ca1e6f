/**
 * The local IAM evaluator as IAM's policy evaluation logic describes it: explicit deny over allow
 * over the implicit deny; Action/NotAction and Resource/NotResource with `*` and `?`; actions
 * case-insensitive, resources not; the condition operators the template uses; AWS's messages.
 */
import { describe, expect, it } from '@jest/globals';

import { UnsupportedPolicyError, accessDeniedMessage, actionMatches, evaluatePolicies, resourceMatches, type IamRequest } from '../../../lib/local/iam/evaluate.js';
import type { Statement } from '../../../lib/local/iam/resolve.js';

const TABLE = 'arn:aws:dynamodb:us-east-1:000000000000:table/tidb-reconciler-state';
const OTHER_TABLE = 'arn:aws:dynamodb:us-east-1:000000000000:table/other';
const SCHEDULE = 'arn:aws:scheduler:us-east-1:000000000000:schedule/tidb-reconciler-dev-timers/tc-demo-basic-wake';
const ROLE = 'arn:aws:iam::000000000000:role/tidb-reconciler-dev-us-east-1-timer-schedules';

const allow = (over: Partial<Statement>): Statement => ({ Effect: 'Allow', ...over });
const deny = (over: Partial<Statement>): Statement => ({ Effect: 'Deny', ...over });
const get: IamRequest = { action: 'dynamodb:GetItem', resource: TABLE };

describe('evaluatePolicies', () => {
  it.each<{ name: string; statements: Statement[]; request: IamRequest; decision: string }>([
    { name: 'no statement: the implicit deny', statements: [], request: get, decision: 'implicit-deny' },
    { name: 'an exact allow', statements: [allow({ Action: 'dynamodb:GetItem', Resource: TABLE })], request: get, decision: 'allow' },
    { name: 'an allow of another action', statements: [allow({ Action: ['dynamodb:PutItem', 'dynamodb:Query'], Resource: TABLE })], request: get, decision: 'implicit-deny' },
    { name: 'an allow on another table', statements: [allow({ Action: 'dynamodb:GetItem', Resource: OTHER_TABLE })], request: get, decision: 'implicit-deny' },
    { name: 'an explicit deny beats an allow', statements: [allow({ Action: 'dynamodb:*', Resource: '*' }), deny({ Action: 'dynamodb:GetItem', Resource: TABLE })], request: get, decision: 'explicit-deny' },
    { name: 'a deny of another action leaves the allow', statements: [allow({ Action: 'dynamodb:GetItem', Resource: TABLE }), deny({ Action: 'dynamodb:DeleteItem', Resource: '*' })], request: get, decision: 'allow' },
    { name: 'an action wildcard', statements: [allow({ Action: 'dynamodb:Get*', Resource: TABLE })], request: get, decision: 'allow' },
    { name: 'a single-character wildcard', statements: [allow({ Action: 'dynamodb:GetIte?', Resource: TABLE })], request: get, decision: 'allow' },
    { name: 'actions compare case-insensitively', statements: [allow({ Action: 'DynamoDB:getitem', Resource: TABLE })], request: get, decision: 'allow' },
    { name: 'resources compare case-sensitively', statements: [allow({ Action: 'dynamodb:GetItem', Resource: TABLE.toUpperCase() })], request: get, decision: 'implicit-deny' },
    { name: 'a resource wildcard within the resource part', statements: [allow({ Action: 'dynamodb:GetItem', Resource: 'arn:aws:dynamodb:us-east-1:000000000000:table/tidb-*' })], request: get, decision: 'allow' },
    { name: 'a resource wildcard in the region segment', statements: [allow({ Action: 'dynamodb:GetItem', Resource: 'arn:aws:dynamodb:*:000000000000:table/tidb-reconciler-state' })], request: get, decision: 'allow' },
    { name: 'a region wildcard does not reach into the account', statements: [allow({ Action: 'dynamodb:GetItem', Resource: 'arn:aws:dynamodb:*:table/tidb-reconciler-state' })], request: get, decision: 'implicit-deny' },
    { name: 'NotAction allows everything else', statements: [allow({ NotAction: 'dynamodb:DeleteItem', Resource: TABLE })], request: get, decision: 'allow' },
    { name: 'NotAction does not allow what it names', statements: [allow({ NotAction: 'dynamodb:GetItem', Resource: TABLE })], request: get, decision: 'implicit-deny' },
    { name: 'NotResource allows every other resource', statements: [allow({ Action: 'dynamodb:GetItem', NotResource: OTHER_TABLE })], request: get, decision: 'allow' },
    { name: 'NotResource does not allow what it names', statements: [allow({ Action: 'dynamodb:GetItem', NotResource: TABLE })], request: get, decision: 'implicit-deny' },
    {
      name: 'PassRole with the service it is passed to',
      statements: [allow({ Action: 'iam:PassRole', Resource: ROLE, Condition: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } } })],
      request: { action: 'iam:PassRole', resource: ROLE, context: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
      decision: 'allow',
    },
    {
      name: 'PassRole to another service',
      statements: [allow({ Action: 'iam:PassRole', Resource: ROLE, Condition: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } } })],
      request: { action: 'iam:PassRole', resource: ROLE, context: { 'iam:PassedToService': 'lambda.amazonaws.com' } },
      decision: 'implicit-deny',
    },
    {
      name: 'a condition key missing from the request fails the condition',
      statements: [allow({ Action: 'iam:PassRole', Resource: ROLE, Condition: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } } })],
      request: { action: 'iam:PassRole', resource: ROLE },
      decision: 'implicit-deny',
    },
    {
      name: 'a missing key holds under …IfExists',
      statements: [allow({ Action: 'iam:PassRole', Resource: ROLE, Condition: { StringEqualsIfExists: { 'iam:PassedToService': 'scheduler.amazonaws.com' } } })],
      request: { action: 'iam:PassRole', resource: ROLE },
      decision: 'allow',
    },
    {
      name: 'a missing key holds under a negated operator',
      statements: [allow({ Action: 'dynamodb:GetItem', Resource: TABLE, Condition: { StringNotEquals: { 'aws:SourceAccount': '111111111111' } } })],
      request: get,
      decision: 'allow',
    },
    {
      name: 'condition keys compare case-insensitively',
      statements: [allow({ Action: 'iam:PassRole', Resource: ROLE, Condition: { StringEquals: { 'IAM:passedToService': 'scheduler.amazonaws.com' } } })],
      request: { action: 'iam:PassRole', resource: ROLE, context: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
      decision: 'allow',
    },
    {
      name: 'StringLike with a wildcard',
      statements: [allow({ Action: 'scheduler:CreateSchedule', Resource: '*', Condition: { StringLike: { 'aws:SourceArn': 'arn:aws:scheduler:*:000000000000:schedule-group/*-timers' } } })],
      request: { action: 'scheduler:CreateSchedule', resource: SCHEDULE, context: { 'aws:SourceArn': 'arn:aws:scheduler:us-east-1:000000000000:schedule-group/tidb-reconciler-dev-timers' } },
      decision: 'allow',
    },
    {
      name: 'ArnEquals on the schedule group and StringEquals on the account, both holding',
      statements: [allow({ Action: 'sts:AssumeRole', Condition: { StringEquals: { 'aws:SourceAccount': '000000000000' }, ArnEquals: { 'aws:SourceArn': 'arn:aws:scheduler:us-east-1:000000000000:schedule-group/timers' } } })],
      request: { action: 'sts:AssumeRole', resource: ROLE, context: { 'aws:SourceAccount': '000000000000', 'aws:SourceArn': 'arn:aws:scheduler:us-east-1:000000000000:schedule-group/timers' } },
      decision: 'allow',
    },
    {
      name: 'ArnEquals on the schedule group, another group asking',
      statements: [allow({ Action: 'sts:AssumeRole', Condition: { StringEquals: { 'aws:SourceAccount': '000000000000' }, ArnEquals: { 'aws:SourceArn': 'arn:aws:scheduler:us-east-1:000000000000:schedule-group/timers' } } })],
      request: { action: 'sts:AssumeRole', resource: ROLE, context: { 'aws:SourceAccount': '000000000000', 'aws:SourceArn': 'arn:aws:scheduler:us-east-1:000000000000:schedule-group/default' } },
      decision: 'implicit-deny',
    },
    {
      name: 'StringEquals on the account, another account asking',
      statements: [allow({ Action: 'sts:AssumeRole', Condition: { StringEquals: { 'aws:SourceAccount': '000000000000' } } })],
      request: { action: 'sts:AssumeRole', resource: ROLE, context: { 'aws:SourceAccount': '111111111111' } },
      decision: 'implicit-deny',
    },
    {
      name: 'a condition key with several values: any one matches',
      statements: [allow({ Action: 'iam:PassRole', Resource: ROLE, Condition: { StringEquals: { 'iam:PassedToService': ['lambda.amazonaws.com', 'scheduler.amazonaws.com'] } } })],
      request: { action: 'iam:PassRole', resource: ROLE, context: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
      decision: 'allow',
    },
  ])('$name: $decision', ({ statements, request, decision }) => {
    expect(evaluatePolicies(statements, request)).toBe(decision);
  });

  it.each([{ operator: 'NumericLessThan' }, { operator: 'ForAnyValue:StringEquals' }, { operator: 'DateGreaterThan' }])('refuses to guess an operator it does not model: $operator', ({ operator }) => {
    const statements = [allow({ Action: 'dynamodb:GetItem', Resource: TABLE, Condition: { [operator]: { 'aws:CurrentTime': '1' } } })];
    expect(() => evaluatePolicies(statements, get)).toThrow(UnsupportedPolicyError);
  });
});

describe('matching', () => {
  it.each([
    { pattern: 'sqs:SendMessage', action: 'sqs:SendMessage', matches: true },
    { pattern: 'sqs:*', action: 'sqs:SendMessage', matches: true },
    { pattern: '*', action: 'sqs:SendMessage', matches: true },
    { pattern: 'sqs:Send*', action: 'sqs:SendMessageBatch', matches: true },
    { pattern: 'sqs:SendMessage', action: 'sqs:SendMessageBatch', matches: false },
    { pattern: 'dynamodb:Get*', action: 'sqs:GetQueueAttributes', matches: false },
  ])('action $pattern ~ $action: $matches', ({ pattern, action, matches }) => {
    expect(actionMatches(pattern, action)).toBe(matches);
  });

  it.each([
    { pattern: '*', arn: SCHEDULE, matches: true },
    { pattern: 'arn:aws:scheduler:us-east-1:000000000000:schedule/tidb-reconciler-dev-timers/*', arn: SCHEDULE, matches: true },
    { pattern: 'arn:aws:scheduler:us-east-1:000000000000:schedule/default/*', arn: SCHEDULE, matches: false },
    { pattern: 'arn:aws:logs:us-east-1:000000000000:log-group:/aws/lambda/fn:*', arn: 'arn:aws:logs:us-east-1:000000000000:log-group:/aws/lambda/fn:log-stream:2026/11/28/x', matches: true },
    { pattern: 'arn:aws:logs:us-east-1:000000000000:log-group:/aws/lambda/fn:*', arn: 'arn:aws:logs:us-east-1:000000000000:log-group:/aws/lambda/fn-other:log-stream:x', matches: false },
    { pattern: 'arn:aws:sqs:us-east-1:000000000000:q', arn: 'arn:aws:sqs:us-east-1:000000000000:q-dlq', matches: false },
  ])('resource $pattern ~ $arn: $matches', ({ pattern, arn, matches }) => {
    expect(resourceMatches(pattern, arn)).toBe(matches);
  });
});

describe('accessDeniedMessage', () => {
  const principal = 'arn:aws:sts::000000000000:assumed-role/r/fn';
  it.each([
    {
      decision: 'implicit-deny' as const,
      message: `User: ${principal} is not authorized to perform: dynamodb:BatchGetItem on resource: ${TABLE} because no identity-based policy allows the dynamodb:BatchGetItem action`,
    },
    { decision: 'explicit-deny' as const, message: `User: ${principal} is not authorized to perform: dynamodb:BatchGetItem on resource: ${TABLE} with an explicit deny in an identity-based policy` },
  ])('$decision: AWS\'s message', ({ decision, message }) => {
    expect(accessDeniedMessage(principal, { action: 'dynamodb:BatchGetItem', resource: TABLE }, decision)).toBe(message);
  });
});
