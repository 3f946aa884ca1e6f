import { afterAll, beforeAll, describe, it, expect } from '@jest/globals';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import AdmZip from 'adm-zip';

import { loadIamExtract } from '../../lib/local/iam/authority.js';
import { extractIam } from '../../lib/local/iam/extract.js';
import { LIVE_ALIAS } from '../../lib/cli/admin-invoke.js';
import { type PackagedService, packageService } from '../support/serverless-package.js';

// Packages the project's serverless.yml offline (test/support/serverless-package.ts: no AWS
// credentials, a throw-away HOME, a scratch service folder) and checks the CloudFormation template
// and zips it produces.

type Json = Record<string, unknown>;
type Resource = { Type: string; Properties: Json };

const functionNames = ['reconcile', 'sweep', 'timer', 'admin', 'exporter'] as const;
const maxZipBytes = 3 * 1024 * 1024;

let packaged: PackagedService | undefined;
let packageDir = '';
let resources: Record<string, Resource> = {};
let conditions: Json = {};
let template: Json = {};
let packageMs = 0;

beforeAll(async () => {
  packaged = await packageService();
  ({ template, packageDir, packageMs } = packaged);
  resources = template['Resources'] as Record<string, Resource>;
  conditions = (template['Conditions'] as Json | undefined) ?? {};
}, 180_000);

afterAll(() => {
  packaged?.dispose();
});

function resource(logicalId: string): Resource {
  const found = resources[logicalId];
  if (!found) throw new Error(`no resource ${logicalId} in the template`);
  return found;
}

function resourcesOfType(type: string): [string, Resource][] {
  return Object.entries(resources).filter(([, r]) => r.Type === type);
}

function capitalized(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}

function getAtt(logicalId: string): Json {
  return { 'Fn::GetAtt': [logicalId, 'Arn'] };
}

/** The ARN of a function's `live` alias, as osls writes it (scripts/osls-live-alias.cjs). */
function liveAlias(functionLogicalId: string): Json {
  return { 'Fn::Join': [':', [getAtt(functionLogicalId), LIVE_ALIAS]] };
}

// Every IAM policy statement anywhere in the template: roles, inline policies, trust policies.
function allStatements(node: unknown): Json[] {
  if (Array.isArray(node)) return node.flatMap(allStatements);
  if (typeof node !== 'object' || node === null) return [];
  const own = (node as Json)['Statement'];
  const here = Array.isArray(own) ? (own as Json[]) : [];
  return [...here, ...Object.values(node as Json).flatMap(allStatements)];
}

function actionsOf(statement: Json): string[] {
  const action = statement['Action'];
  return Array.isArray(action) ? (action as string[]) : [String(action)];
}

describe('serverless package', () => {
  it('packages offline without AWS credentials', () => {
    expect(packageMs).toBeGreaterThan(0);
    expect(existsSync(join(packageDir, 'cloudformation-template-update-stack.json'))).toBe(true);
  });

  it.each(functionNames.map((name) => ({ name })))('function $name runs on nodejs22.x from its own bundle', ({ name }) => {
    const fn = resource(`${capitalized(name)}LambdaFunction`);
    expect(fn.Type).toBe('AWS::Lambda::Function');
    expect(fn.Properties['Runtime']).toBe('nodejs22.x');
    // arm64: the zip holds only the esbuild bundle (below), pure JavaScript with no native addon.
    expect(fn.Properties['Architectures']).toEqual(['arm64']);
    expect(fn.Properties['Handler']).toBe(`functions/${name}.handler`);
  });

  it('functions learn the reconcile timeout and the queue visibility, so the lease can be checked against them', () => {
    const env = (resource('ReconcileLambdaFunction').Properties['Environment'] as { Variables: Record<string, unknown> }).Variables;
    expect(Number(env['FUNCTION_TIMEOUT_SECONDS'])).toBe(resource('ReconcileLambdaFunction').Properties['Timeout']);
    expect(Number(env['QUEUE_VISIBILITY_TIMEOUT_SECONDS'])).toBe(Number(resource('ReconcileQueue').Properties['VisibilityTimeout']));
  });

  it('the reconcile queue feeds reconcile in batches that report item failures', () => {
    const mappings = resourcesOfType('AWS::Lambda::EventSourceMapping');
    expect(mappings).toHaveLength(1);
    const [, mapping] = mappings[0] ?? [];
    expect(mapping?.Properties).toMatchObject({
      EventSourceArn: getAtt('ReconcileQueue'),
      FunctionName: liveAlias('ReconcileLambdaFunction'),
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });

  it('the queue hides a message for at least six reconcile timeouts plus the batching window', () => {
    const timeoutSeconds = resource('ReconcileLambdaFunction').Properties['Timeout'] as number;
    const [, mapping] = resourcesOfType('AWS::Lambda::EventSourceMapping')[0] ?? [];
    const windowSeconds = (mapping?.Properties['MaximumBatchingWindowInSeconds'] as number | undefined) ?? 0;
    const visibility = Number(resource('ReconcileQueue').Properties['VisibilityTimeout']);
    expect(visibility).toBeGreaterThanOrEqual(6 * timeoutSeconds + windowSeconds);
  });

  it('the queue redrives to the dead-letter queue after five receives, kept for 14 days', () => {
    expect(resource('ReconcileQueue').Properties['RedrivePolicy']).toEqual({
      deadLetterTargetArn: getAtt('ReconcileDeadLetterQueue'),
      maxReceiveCount: 5,
    });
    expect(resource('ReconcileDeadLetterQueue').Properties['MessageRetentionPeriod']).toBe(14 * 24 * 3600);
  });

  it('the state table is on-demand with pk/sk string keys and TTL on expiresAt', () => {
    expect(resource('StateTable').Properties).toMatchObject({
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
      ],
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
    });
  });

  it('the exporter runs 15-minute sessions at 256 MB: its timeout is Lambda\'s longest, and it learns its session length', () => {
    const fn = resource('ExporterLambdaFunction');
    expect(fn.Properties['Timeout']).toBe(900);
    expect(fn.Properties['MemorySize']).toBe(256);
    expect((fn.Properties['Environment'] as { Variables: Json }).Variables['EXPORTER_SESSION_MINUTES']).toBe('15');
    // Always watching unless the deployment opts into catch-up (docs/adr/0030).
    expect((fn.Properties['Environment'] as { Variables: Json }).Variables['EXPORTER_AT_REST']).toBe('watch');
  });

  it('sweep and exporter run on EventBridge Scheduler rates', () => {
    const rates = Object.fromEntries(
      resourcesOfType('AWS::Scheduler::Schedule').map(([, s]) => [
        JSON.stringify((s.Properties['Target'] as Json)['Arn']),
        s.Properties['ScheduleExpression'],
      ]),
    );
    expect(rates).toEqual({
      [JSON.stringify(liveAlias('SweepLambdaFunction'))]: 'rate(5 minutes)',
      [JSON.stringify(liveAlias('ExporterLambdaFunction'))]: 'rate(15 minutes)',
    });
  });

  it('the timer schedule group exists and the scheduler role may only send to the reconcile queue, for this account\'s timer schedules only', () => {
    expect(resource('TimerScheduleGroup').Type).toBe('AWS::Scheduler::ScheduleGroup');
    const role = resource('SchedulerRole');
    expect(role.Type).toBe('AWS::IAM::Role');
    expect(allStatements(role.Properties['AssumeRolePolicyDocument'])).toEqual([
      {
        Effect: 'Allow',
        Principal: { Service: 'scheduler.amazonaws.com' },
        Action: 'sts:AssumeRole',
        Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } }, ArnEquals: { 'aws:SourceArn': getAtt('TimerScheduleGroup') } },
      },
    ]);
    expect(allStatements(role.Properties['Policies'])).toEqual([
      { Effect: 'Allow', Action: ['sqs:SendMessage'], Resource: getAtt('ReconcileQueue') },
    ]);
  });

  it('the rate schedules run as a role that may only invoke sweep and exporter, for this account\'s rate schedules only', () => {
    const role = resource('RateScheduleRole');
    expect(allStatements(role.Properties['AssumeRolePolicyDocument'])).toEqual([
      {
        Effect: 'Allow',
        Principal: { Service: 'scheduler.amazonaws.com' },
        Action: 'sts:AssumeRole',
        Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } }, ArnEquals: { 'aws:SourceArn': getAtt('RateScheduleGroup') } },
      },
    ]);
    expect(allStatements(role.Properties['Policies'])).toEqual([
      { Effect: 'Allow', Action: ['lambda:InvokeFunction'], Resource: [liveAlias('SweepLambdaFunction'), liveAlias('ExporterLambdaFunction')] },
    ]);
    const groupName = resource('RateScheduleGroup').Properties['Name'];
    for (const [, schedule] of resourcesOfType('AWS::Scheduler::Schedule')) {
      expect(schedule.Properties).toMatchObject({ GroupName: groupName, Target: { RoleArn: getAtt('RateScheduleRole') } });
      // The group is named, not referenced: CloudFormation must be told to create it first (and the alias it invokes).
      expect((schedule as Resource & { DependsOn?: string[] }).DependsOn).toContain('RateScheduleGroup');
    }
  });

  it('every function runs as its own role, and the framework makes no shared one', () => {
    expect(resources['IamRoleLambdaExecution']).toBeUndefined();
    const roles = functionNames.map((name) => JSON.stringify(resource(`${capitalized(name)}LambdaFunction`).Properties['Role']));
    expect(roles).toEqual(functionNames.map((name) => JSON.stringify(getAtt(`${capitalized(name)}Role`))));
    expect(resourcesOfType('AWS::IAM::Role').map(([id]) => id).sort()).toEqual(
      [...functionNames.map((name) => `${capitalized(name)}Role`), 'RateScheduleRole', 'SchedulerRole'].sort(),
    );
  });

  it.each(functionNames.map((name) => ({ name })))('the $name role is assumed by Lambda only and may write only its own function\'s logs', ({ name }) => {
    const role = resource(`${capitalized(name)}Role`);
    expect(allStatements(role.Properties['AssumeRolePolicyDocument'])).toEqual([{ Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' }, Action: 'sts:AssumeRole' }]);
    const logs = allStatements(role.Properties['Policies']).filter((s) => actionsOf(s).some((a) => a.startsWith('logs:')));
    expect(logs).toEqual([{ Effect: 'Allow', Action: ['logs:CreateLogStream', 'logs:PutLogEvents'], Resource: getAtt(`${capitalized(name)}LogGroup`) }]);
  });

  // Exactly the AWS calls each function's code makes (README, Deploy); the local world checks the
  // same roles call by call (test/integration/iam-enforced.test.ts).
  const timers = ['scheduler:CreateSchedule', 'scheduler:UpdateSchedule', 'scheduler:DeleteSchedule', 'iam:PassRole'];
  // The admin function's dead-letter redrive, on the dead-letter queue (its SendMessage is the reconcile queue's).
  const redrive = ['sqs:StartMessageMoveTask', 'sqs:ListMessageMoveTasks', 'sqs:GetQueueAttributes', 'sqs:ReceiveMessage', 'sqs:DeleteMessage'];
  const grants: Record<(typeof functionNames)[number], string[]> = {
    // GetSchedule: a BackupSchedule step reads its recurring schedule (ADR 0023); EC2: the VolumeModifying gate's EBS modifier (ADR 0031).
    reconcile: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'sqs:SendMessage', 'sqs:ChangeMessageVisibility', 'sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes', ...timers, 'scheduler:GetSchedule', 'ec2:ModifyVolume', 'ec2:DescribeVolumesModifications'],
    // GetItem: the exporter's watched-until mark (ADR 0024).
    sweep: ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'sqs:SendMessage'],
    timer: ['sqs:SendMessage'],
    admin: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:Query', 'sqs:SendMessage', ...redrive, ...timers, 'eks:DescribeAccessEntry', 'eks:ListAccessEntries'],
    exporter: ['dynamodb:GetItem', 'dynamodb:PutItem', 'sqs:SendMessage'],
  };
  it.each(functionNames.map((name) => ({ name, actions: grants[name] })))('the $name role may do exactly $actions', ({ name, actions }) => {
    const statements = allStatements(resource(`${capitalized(name)}Role`).Properties['Policies']).filter((s) => !actionsOf(s).some((a) => a.startsWith('logs:')));
    expect(statements.flatMap(actionsOf).sort()).toEqual([...actions].sort());
    const scoped = (prefix: string, target: unknown): void => {
      for (const s of statements.filter((st) => actionsOf(st).some((a) => a.startsWith(prefix)))) expect(s.Resource).toEqual(target);
    };
    scoped('dynamodb:', getAtt('StateTable'));
    for (const st of statements.filter((x) => actionsOf(x).some((a) => a.startsWith('sqs:')))) {
      const onDeadLetterQueue = name === 'admin' && actionsOf(st).includes('sqs:StartMessageMoveTask');
      expect(st.Resource).toEqual(getAtt(onDeadLetterQueue ? 'ReconcileDeadLetterQueue' : 'ReconcileQueue'));
      if (onDeadLetterQueue) expect([...actionsOf(st)].sort()).toEqual([...redrive].sort());
    }
    scoped('iam:', getAtt('SchedulerRole'));
    scoped('scheduler:', { 'Fn::Sub': ['arn:${AWS::Partition}:scheduler:${AWS::Region}:${AWS::AccountId}:schedule/${Group}/*', { Group: { Ref: 'TimerScheduleGroup' } }] });
  });

  it('the reconcile role may modify only the EBS CSI driver\'s volumes (its tag), and describe modifications (no resource-level permission)', () => {
    const statements = allStatements(resource('ReconcileRole').Properties['Policies']).filter((s) => actionsOf(s).some((a) => a.startsWith('ec2:')));
    expect(statements).toEqual([
      { Effect: 'Allow', Action: ['ec2:ModifyVolume'], Resource: { 'Fn::Sub': 'arn:${AWS::Partition}:ec2:*:${AWS::AccountId}:volume/*' }, Condition: { StringEquals: { 'aws:ResourceTag/ebs.csi.aws.com/cluster': 'true' } } },
      { Effect: 'Allow', Action: ['ec2:DescribeVolumesModifications'], Resource: '*' },
    ]);
  });

  it('functions may pass the scheduler role only to EventBridge Scheduler', () => {
    const passRole = Object.entries(resources)
      .filter(([, r]) => r.Type === 'AWS::IAM::Role')
      .flatMap(([, r]) => allStatements(r.Properties['Policies']))
      .filter((s) => actionsOf(s).includes('iam:PassRole'));
    expect(passRole.length).toBe(2);
    for (const statement of passRole) {
      expect(statement).toEqual({
        Effect: 'Allow',
        Action: ['iam:PassRole'],
        Resource: getAtt('SchedulerRole'),
        Condition: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
      });
    }
  });

  it('only the admin role is granted anything of EKS, and only reading its cluster\'s access entries (the Kubernetes token is a presigned sts:GetCallerIdentity, which needs no grant)', () => {
    const withEks = Object.entries(resources).filter(([, r]) => allStatements(r.Properties['Policies']).flatMap(actionsOf).some((a) => a.startsWith('eks:')));
    expect(withEks.map(([id]) => id)).toEqual(['AdminRole']);
    const eks = allStatements(resource('AdminRole').Properties['Policies']).filter((s) => actionsOf(s).some((a) => a.startsWith('eks:')));
    expect(eks.map((s) => s['Resource'])).toEqual([
      { 'Fn::Sub': 'arn:${AWS::Partition}:eks:${AWS::Region}:${AWS::AccountId}:access-entry/unconfigured/*' },
      { 'Fn::Sub': 'arn:${AWS::Partition}:eks:${AWS::Region}:${AWS::AccountId}:cluster/unconfigured' },
    ]);
  });

  it('the IAM the local world enforces (infra/iam/roles.json) is this template\'s', () => {
    expect(extractIam(template as Parameters<typeof extractIam>[0])).toEqual(loadIamExtract());
  });

  it('the admin function, and only it, has a function URL with AWS_IAM auth (the caller is verified and named)', () => {
    const urls = resourcesOfType('AWS::Lambda::Url');
    expect(urls.map(([, r]) => [(r.Properties as Json)['AuthType'], (r.Properties as Json)['TargetFunctionArn']])).toEqual([['AWS_IAM', liveAlias('AdminLambdaFunction')]]);
  });

  it('the functions may read the EKS access entries of their cluster only (the admin function maps its caller)', () => {
    // The roles' own policies; several clusters' grants are conditional policies (serverless-package-eks-clusters.test.ts).
    const roles = Object.values(resources).filter((r) => r.Type === 'AWS::IAM::Role');
    const statements = allStatements(roles).filter((s) => actionsOf(s).some((a) => a.startsWith('eks:') && a.includes('AccessEntr')));
    expect(statements.map((s) => [actionsOf(s), JSON.stringify(s['Resource'])])).toEqual([
      [['eks:DescribeAccessEntry'], expect.stringContaining(':access-entry/')],
      [['eks:ListAccessEntries'], expect.stringContaining(':cluster/')],
    ]);
  });

  it('no IAM statement anywhere allows a wildcard action', () => {
    const statements = allStatements(resources);
    expect(statements.length).toBeGreaterThan(5);
    const wildcards = statements.filter((s) => s['Effect'] === 'Allow').flatMap(actionsOf).filter((a) => a.includes('*'));
    expect(wildcards).toEqual([]);
  });

  it('the only wildcard action is the framework\'s deny of plain-HTTP access to its deployment bucket', () => {
    const wildcards = allStatements(resources).filter((s) => actionsOf(s).some((a) => a.includes('*')));
    expect(wildcards).toEqual([
      expect.objectContaining({
        Effect: 'Deny',
        Action: 's3:*',
        Principal: '*',
        Condition: { Bool: { 'aws:SecureTransport': false } },
      }),
    ]);
    expect(allStatements(resource('ServerlessDeploymentBucketPolicy'))).toEqual(wildcards);
  });

  it('the state table outlives the stack: retained on delete and replace, protected from deletion, recoverable to a point in time', () => {
    const table = resource('StateTable') as Resource & Json;
    expect(table['DeletionPolicy']).toBe('Retain');
    expect(table['UpdateReplacePolicy']).toBe('Retain');
    expect(table.Properties).toMatchObject({ DeletionProtectionEnabled: true, PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } });
  });

  it.each([{ queue: 'ReconcileQueue' }, { queue: 'ReconcileDeadLetterQueue' }])('$queue is encrypted: SQS-managed keys unless a KMS key is given', ({ queue }) => {
    expect(resource(queue).Properties).toMatchObject({
      SqsManagedSseEnabled: { 'Fn::If': ['QueuesUseKmsKey', { Ref: 'AWS::NoValue' }, true] },
      KmsMasterKeyId: { 'Fn::If': ['QueuesUseKmsKey', '', { Ref: 'AWS::NoValue' }] },
    });
    expect(conditions['QueuesUseKmsKey']).toEqual({ 'Fn::Not': [{ 'Fn::Equals': ['', ''] }] });
  });

  it.each(functionNames.map((name) => ({ name })))('$name joins the cluster VPC when subnets and security groups are given, after its role may create network interfaces', ({ name }) => {
    const fn = resource(`${capitalized(name)}LambdaFunction`) as Resource & { Metadata?: Json };
    expect(conditions['AttachToVpc']).toEqual({ 'Fn::And': [{ 'Fn::Not': [{ 'Fn::Equals': ['', ''] }] }, { 'Fn::Not': [{ 'Fn::Equals': ['', ''] }] }] });
    expect(fn.Properties['VpcConfig']).toEqual({ 'Fn::If': ['AttachToVpc', { SubnetIds: { 'Fn::Split': [',', ''] }, SecurityGroupIds: { 'Fn::Split': [',', ''] } }, { Ref: 'AWS::NoValue' }] });
    expect(fn.Metadata?.['VpcAccessPolicy']).toEqual({ 'Fn::If': ['AttachToVpc', { Ref: 'VpcAccessPolicy' }, ''] });
    expect((fn.Properties['Environment'] as { Variables: Json }).Variables['COMPONENT_ACCESS']).toBe('direct');
    // Cluster-wide unless the watchNamespaces parameter lists namespaces.
    expect((fn.Properties['Environment'] as { Variables: Json }).Variables['WATCH_NAMESPACES']).toBe('');
  });

  it('in the VPC every role gets exactly the network-interface actions of AWSLambdaVPCAccessExecutionRole, and only then', () => {
    const policy = resource('VpcAccessPolicy') as Resource & { Condition?: string };
    expect(policy.Type).toBe('AWS::IAM::Policy');
    expect(policy.Condition).toBe('AttachToVpc');
    expect(policy.Properties['Roles']).toEqual(functionNames.map((name) => ({ Ref: `${capitalized(name)}Role` })));
    expect(allStatements(policy.Properties['PolicyDocument'])).toEqual([
      {
        Effect: 'Allow',
        Action: ['ec2:CreateNetworkInterface', 'ec2:DescribeNetworkInterfaces', 'ec2:DescribeSubnets', 'ec2:DeleteNetworkInterface', 'ec2:AssignPrivateIpAddresses', 'ec2:UnassignPrivateIpAddresses'],
        Resource: '*',
      },
    ]);
  });

  it('reconcile runs at most reconcileConcurrency at once, reserved for it; admin keeps a reserve of its own', () => {
    const [, mapping] = resourcesOfType('AWS::Lambda::EventSourceMapping')[0] ?? [];
    const maximum = (mapping?.Properties['ScalingConfig'] as Json | undefined)?.['MaximumConcurrency'];
    expect(maximum).toBe(10);
    expect(resource('ReconcileLambdaFunction').Properties['ReservedConcurrentExecutions']).toBe(maximum);
    expect(resource('AdminLambdaFunction').Properties['ReservedConcurrentExecutions']).toBe(2);
  });

  it.each([
    { alarm: 'DeadLetterQueueNotEmptyAlarm', namespace: 'AWS/SQS', metric: 'ApproximateNumberOfMessagesVisible', dimension: { Name: 'QueueName', Value: { 'Fn::GetAtt': ['ReconcileDeadLetterQueue', 'QueueName'] } }, threshold: 0 },
    { alarm: 'ReconcileOldestMessageAlarm', namespace: 'AWS/SQS', metric: 'ApproximateAgeOfOldestMessage', dimension: { Name: 'QueueName', Value: { 'Fn::GetAtt': ['ReconcileQueue', 'QueueName'] } }, threshold: 1800 },
    { alarm: 'ReconcileErrorsAlarm', namespace: 'AWS/Lambda', metric: 'Errors', dimension: { Name: 'FunctionName', Value: { Ref: 'ReconcileLambdaFunction' } }, threshold: 0 },
    { alarm: 'ReconcileThrottlesAlarm', namespace: 'AWS/Lambda', metric: 'Throttles', dimension: { Name: 'FunctionName', Value: { Ref: 'ReconcileLambdaFunction' } }, threshold: 0 },
    { alarm: 'SweepFailedAlarm', namespace: 'AWS/Lambda', metric: 'Errors', dimension: { Name: 'FunctionName', Value: { Ref: 'SweepLambdaFunction' } }, threshold: 0 },
  ])('$alarm watches $namespace $metric and notifies the alarm topic when one is given', ({ alarm, namespace, metric, dimension, threshold }) => {
    const { Properties: p } = resource(alarm);
    expect(p).toMatchObject({ Namespace: namespace, MetricName: metric, Dimensions: [dimension], Threshold: threshold, ComparisonOperator: 'GreaterThanThreshold' });
    expect(p['AlarmActions']).toEqual({ 'Fn::If': ['AlarmsNotifyTopic', [''], { Ref: 'AWS::NoValue' }] });
    // The metric's dimension names a resource of this stack.
    const named = 'Ref' in dimension.Value ? dimension.Value.Ref : dimension.Value['Fn::GetAtt'][0];
    expect(resources[named ?? '']).toBeDefined();
  });

  it.each(functionNames.map((name) => ({ name })))('the $name zip holds only its bundle and is under 3 MB', ({ name }) => {
    const zipPath = join(packageDir, `${name}.zip`);
    expect(statSync(zipPath).size).toBeLessThan(maxZipBytes);
    const entries = new AdmZip(zipPath).getEntries().map((e) => e.entryName);
    expect(entries).toEqual([`functions/${name}.mjs`]);
  });
});

describe('upgrades: every function a published version behind its live alias, which every invoker uses', () => {
  it.each(functionNames.map((name) => ({ name })))('$name has a live alias on the version this package publishes', ({ name }) => {
    const fn = `${capitalized(name)}LambdaFunction`;
    const versions = resourcesOfType('AWS::Lambda::Version').filter(([, r]) => JSON.stringify(r.Properties['FunctionName']) === JSON.stringify({ Ref: fn }));
    expect(versions).toHaveLength(1);
    const [versionId, version] = versions[0] ?? [];
    // A retained version is what a rollback returns to.
    expect((version as Resource & { DeletionPolicy?: string }).DeletionPolicy).toBe('Retain');
    expect(resource(`${capitalized(name)}LiveAlias`)).toEqual({
      Type: 'AWS::Lambda::Alias',
      Properties: { FunctionName: { Ref: fn }, Name: LIVE_ALIAS, FunctionVersion: { 'Fn::GetAtt': [versionId, 'Version'] } },
    });
  });

  it('no event source, schedule, URL or grant names a function without its alias', () => {
    const invokers = [
      ...resourcesOfType('AWS::Lambda::EventSourceMapping').map(([id, r]) => [id, r.Properties['FunctionName']]),
      ...resourcesOfType('AWS::Scheduler::Schedule').map(([id, r]) => [id, (r.Properties['Target'] as Json)['Arn']]),
      ...resourcesOfType('AWS::Lambda::Url').map(([id, r]) => [id, r.Properties['TargetFunctionArn']]),
      ...resourcesOfType('AWS::Lambda::Permission').map(([id, r]) => [id, r.Properties['FunctionName']]),
      ...allStatements(template).filter((st) => actionsOf(st).some((a) => a.startsWith('lambda:Invoke'))).flatMap((st) => [st.Resource].flat().map((arn) => ['statement', arn])),
    ];
    expect(invokers.length).toBeGreaterThanOrEqual(5);
    for (const [id, target] of invokers) {
      const fn = JSON.stringify(target).match(/"Fn::GetAtt":\["(\w+LambdaFunction)","Arn"\]/)?.[1];
      expect({ id, target }).toEqual({ id, target: liveAlias(fn ?? 'no function') });
    }
  });

  it('the schedules and the event source mapping are created after the alias they invoke', () => {
    const dependsOn = (id: string): unknown => (resource(id) as Resource & { DependsOn?: unknown }).DependsOn;
    expect(dependsOn('SweepSchedulerSchedule1')).toContain('SweepLiveAlias');
    expect(dependsOn('ExporterSchedulerSchedule1')).toContain('ExporterLiveAlias');
    const [[mappingId] = []] = resourcesOfType('AWS::Lambda::EventSourceMapping');
    expect(dependsOn(mappingId ?? '')).toContain('ReconcileLiveAlias');
  });
});

