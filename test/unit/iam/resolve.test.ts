/**
 * The packaged template's IAM, resolved to the local world: every intrinsic the roles use becomes
 * the local resource's ARN or name, and what a request on the wire needs authorised.
 */
import { describe, expect, it } from '@jest/globals';

import { LocalIam, loadIamExtract } from '../../../lib/local/iam/authority.js';
import { type CfnValue, extractIam } from '../../../lib/local/iam/extract.js';
import { localIam } from '../../../lib/local/iam/identities.js';
import { LocalResolver } from '../../../lib/local/iam/resolve.js';
import { callOf, errorBody } from '../../../lib/local/iam/wire.js';

const extract = loadIamExtract();
const resolver = new LocalResolver(extract, { names: { StateTable: 'local-state', ReconcileQueue: 'local-queue' } });

describe('LocalResolver', () => {
  it.each<{ value: CfnValue; resolved: string }>([
    { value: { 'Fn::GetAtt': ['StateTable', 'Arn'] }, resolved: 'arn:aws:dynamodb:us-east-1:000000000000:table/local-state' },
    { value: { 'Fn::GetAtt': ['ReconcileQueue', 'Arn'] }, resolved: 'arn:aws:sqs:us-east-1:000000000000:local-queue' },
    { value: { Ref: 'ReconcileQueue' }, resolved: 'https://sqs.us-east-1.amazonaws.com/000000000000/local-queue' },
    { value: { 'Fn::GetAtt': ['SchedulerRole', 'Arn'] }, resolved: 'arn:aws:iam::000000000000:role/tidb-reconciler-dev-us-east-1-timer-schedules' },
    { value: { 'Fn::GetAtt': ['SweepLambdaFunction', 'Arn'] }, resolved: 'arn:aws:lambda:us-east-1:000000000000:function:tidb-reconciler-dev-sweep' },
    { value: { 'Fn::GetAtt': ['SweepLogGroup', 'Arn'] }, resolved: 'arn:aws:logs:us-east-1:000000000000:log-group:/aws/lambda/tidb-reconciler-dev-sweep:*' },
    { value: { 'Fn::GetAtt': ['TimerScheduleGroup', 'Arn'] }, resolved: 'arn:aws:scheduler:us-east-1:000000000000:schedule-group/tidb-reconciler-dev-timers' },
    { value: { Ref: 'AWS::AccountId' }, resolved: '000000000000' },
    {
      value: { 'Fn::Sub': ['arn:${AWS::Partition}:scheduler:${AWS::Region}:${AWS::AccountId}:schedule/${Group}/*', { Group: { Ref: 'TimerScheduleGroup' } }] },
      resolved: 'arn:aws:scheduler:us-east-1:000000000000:schedule/tidb-reconciler-dev-timers/*',
    },
    { value: { 'Fn::Sub': '${ReconcileQueue.Arn}' }, resolved: 'arn:aws:sqs:us-east-1:000000000000:local-queue' },
    { value: { 'Fn::Sub': 'table/${StateTable}' }, resolved: 'table/local-state' },
    { value: { 'Fn::Join': ['/', ['a', { Ref: 'StateTable' }]] }, resolved: 'a/local-state' },
  ])('$value → $resolved', ({ value, resolved }) => {
    expect(resolver.resolve(value)).toBe(resolved);
  });

  it.each<{ value: CfnValue }>([{ value: { 'Fn::ImportValue': 'x' } }, { value: { 'Fn::GetAtt': ['StateTable', 'StreamArn'] } }, { value: { Ref: 'NoSuchResource' } }])('refuses what it does not model: $value', ({ value }) => {
    expect(() => resolver.resolve(value)).toThrow();
  });
});

describe('the packaged roles, locally', () => {
  const iam = localIam();

  it('has one role per function, and two roles the scheduler assumes', () => {
    expect(Object.fromEntries(Object.entries(extract.functions).map(([fn, f]) => [fn, f.role]))).toEqual({
      reconcile: 'ReconcileRole',
      sweep: 'SweepRole',
      timer: 'TimerRole',
      admin: 'AdminRole',
      exporter: 'ExporterRole',
    });
    expect(Object.keys(extract.roles).sort()).toEqual(['AdminRole', 'ExporterRole', 'RateScheduleRole', 'ReconcileRole', 'SchedulerRole', 'SweepRole', 'TimerRole']);
  });

  it.each([
    { fn: 'sweep', action: 'dynamodb:BatchGetItem', allowed: true },
    { fn: 'sweep', action: 'dynamodb:GetItem', allowed: true },
    { fn: 'sweep', action: 'dynamodb:PutItem', allowed: false },
    { fn: 'timer', action: 'dynamodb:GetItem', allowed: false },
    { fn: 'exporter', action: 'dynamodb:UpdateItem', allowed: false },
    { fn: 'reconcile', action: 'dynamodb:UpdateItem', allowed: true },
    { fn: 'reconcile', action: 'dynamodb:DeleteItem', allowed: false },
    { fn: 'admin', action: 'dynamodb:Query', allowed: true },
  ])('$fn may $action on the state table: $allowed', ({ fn, action, allowed }) => {
    const check = (): void => new LocalIam(extract, { names: { StateTable: 'tidb-reconciler-state' } }).authorize(iam.functionPrincipal(fn), action, [iam.resolver.arnOf('StateTable')]);
    if (allowed) expect(check).not.toThrow();
    else expect(check).toThrow(`User: arn:aws:sts::000000000000:assumed-role/tidb-reconciler-dev-us-east-1-${fn}/tidb-reconciler-dev-${fn} is not authorized to perform: ${action}`);
  });

  it.each([
    { group: 'tidb-reconciler-dev-timers', account: '000000000000', role: 'SchedulerRole', assumed: true },
    { group: 'default', account: '000000000000', role: 'SchedulerRole', assumed: false },
    { group: 'tidb-reconciler-dev-timers', account: '111111111111', role: 'SchedulerRole', assumed: false },
    { group: 'tidb-reconciler-dev-rates', account: '000000000000', role: 'RateScheduleRole', assumed: true },
    { group: 'tidb-reconciler-dev-timers', account: '000000000000', role: 'RateScheduleRole', assumed: false },
  ])('Scheduler assumes $role for a schedule of group $group in account $account: $assumed', ({ group, account, role, assumed }) => {
    const assume = () =>
      iam.assumeByService(role, 'scheduler.amazonaws.com', { 'aws:SourceAccount': account, 'aws:SourceArn': `arn:aws:scheduler:us-east-1:${account}:schedule-group/${group}` }, 'wake');
    if (assumed) expect(assume().role.logicalId).toBe(role);
    else expect(assume).toThrow('scheduler.amazonaws.com is not authorized to perform: sts:AssumeRole');
  });

  it('only Lambda may assume a function role', () => {
    expect(() => iam.assumeByService('SweepRole', 'scheduler.amazonaws.com', { 'aws:SourceAccount': '000000000000' }, 'x')).toThrow('not authorized to perform: sts:AssumeRole');
  });

  it('an access key id names its function; an unknown one nobody', () => {
    expect(iam.principalOfAccessKey(iam.credentialsOf('admin').accessKeyId)).toMatchObject({ label: 'admin' });
    expect(iam.principalOfAccessKey('AKIDEXAMPLE')).toBeUndefined();
  });
});

describe('extractIam', () => {
  it('refuses a role with managed policies (they cannot be read from the template)', () => {
    const template = { Resources: { R: { Type: 'AWS::IAM::Role', Properties: { ManagedPolicyArns: ['arn:aws:iam::aws:policy/AdministratorAccess'] } } } };
    expect(() => extractIam(template)).toThrow('ManagedPolicyArns');
  });

  it('refuses a function whose role is not a role of the template', () => {
    const template = { Resources: { FLambdaFunction: { Type: 'AWS::Lambda::Function', Properties: { Handler: 'functions/f.handler', Role: 'arn:aws:iam::1:role/x' } } } };
    expect(() => extractIam(template)).toThrow('FLambdaFunction.Properties.Role');
  });
});

describe('what a request on the wire needs authorised', () => {
  const where = { account: '000000000000', region: 'us-east-1', partition: 'aws' };
  const table = (t: string): string => `arn:aws:dynamodb:us-east-1:000000000000:table/${t}`;
  it.each([
    { target: 'DynamoDB_20120810.GetItem', body: { TableName: 't1' }, calls: [{ action: 'dynamodb:GetItem', resources: [table('t1')] }] },
    { target: 'DynamoDB_20120810.BatchGetItem', body: { RequestItems: { t1: {}, t2: {} } }, calls: [{ action: 'dynamodb:BatchGetItem', resources: [table('t1'), table('t2')] }] },
    {
      target: 'DynamoDB_20120810.TransactWriteItems',
      body: { TransactItems: [{ Put: { TableName: 't1' } }, { ConditionCheck: { TableName: 't2' } }] },
      calls: [
        { action: 'dynamodb:PutItem', resources: [table('t1')] },
        { action: 'dynamodb:ConditionCheckItem', resources: [table('t2')] },
      ],
    },
  ])('DynamoDB $target', ({ target, body, calls }) => {
    expect(callOf('dynamodb', { 'x-amz-target': target }, Buffer.from(JSON.stringify(body)), where)).toEqual(calls);
  });

  it.each([
    { headers: { 'x-amz-target': 'AmazonSQS.SendMessageBatch' }, body: JSON.stringify({ QueueUrl: 'http://127.0.0.1:1/000000000000/q' }), action: 'sqs:SendMessage' },
    { headers: { 'x-amz-target': 'AmazonSQS.DeleteMessageBatch' }, body: JSON.stringify({ QueueUrl: 'http://127.0.0.1:1/000000000000/q' }), action: 'sqs:DeleteMessage' },
    { headers: {}, body: 'Action=ChangeMessageVisibilityBatch&QueueUrl=http%3A%2F%2F127.0.0.1%3A1%2F000000000000%2Fq', action: 'sqs:ChangeMessageVisibility' },
  ])('SQS $action', ({ headers, body, action }) => {
    expect(callOf('sqs', headers, Buffer.from(body), where)).toEqual([{ action, resources: ['arn:aws:sqs:us-east-1:000000000000:q'] }]);
  });

  it.each([
    { service: 'dynamodb' as const, status: 400, type: 'com.amazonaws.dynamodb.v20120810#AccessDeniedException' },
    { service: 'sqs' as const, status: 403, type: 'com.amazon.coral.service#AccessDeniedException' },
  ])('$service answers a refusal with HTTP $status and $type', ({ service, status, type }) => {
    const answer = errorBody(service, 'access-denied', 'm');
    expect(answer.status).toBe(status);
    expect(JSON.parse(answer.body)).toEqual({ __type: type, message: 'm' });
  });
});
