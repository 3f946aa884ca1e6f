/**
 * IAM for the in-memory AWS ends (the simulator's reconcile queue, the local EventBridge Scheduler):
 * port decorators that authorise each call as AWS would before the end sees it, and throw what the
 * SDK would raise for a refusal. SQS checks the queue action (a batch by its single action);
 * Scheduler checks `scheduler:<Op>` on the schedule's ARN and, for CreateSchedule and
 * UpdateSchedule, `iam:PassRole` on the target's role with `iam:PassedToService`
 * (https://docs.aws.amazon.com/scheduler/latest/UserGuide/setting-up.html#setting-up-execution-role).
 * A due schedule delivers as the role its target names, which Scheduler assumes with the schedule's
 * account and group as `aws:SourceAccount` / `aws:SourceArn`.
 */
import type { ClusterDescriber } from '../../eks/cluster-access.js';
import type { AccessEntries } from '../../eks/port.js';
import type { OutgoingMessage, ReceivedRecord, ReconcileQueue } from '../../queue/port.js';
import type { DeadLetterRedrive } from '../../queue/redrive.js';
import { MOVE_TASK_SOURCE_ACTIONS } from './wire.js';
import type { ScheduleRequest, SchedulerPort } from '../../timer/port.js';
import { AccessDeniedError, type LocalIam, type Principal } from './authority.js';

/**
 * SQS over the JSON protocol answers a refusal with the query-compatible code `AccessDenied`
 * (`x-amzn-query-error`), and that is the name the SDK gives the error (see wire.ts).
 */
const SQS_DENIED_NAME = 'AccessDenied';

/** `queue` with every call authorised for `principal` on `queueArn`. */
export function guardQueue(queue: ReconcileQueue, iam: LocalIam, principal: Principal, queueArn: string): ReconcileQueue {
  const check = (action: string): void => sqsAuthorize(iam, principal, action, queueArn);
  return {
    send: async (messages: readonly OutgoingMessage[]) => (check('sqs:SendMessage'), queue.send(messages)),
    receive: async (max: number, waitMs: number, signal?: AbortSignal): Promise<ReceivedRecord[]> => (check('sqs:ReceiveMessage'), queue.receive(max, waitMs, signal)),
    delete: async (handles: readonly string[]) => (check('sqs:DeleteMessage'), queue.delete(handles)),
    changeVisibility: async (handle: string, seconds: number) => (check('sqs:ChangeMessageVisibility'), queue.changeVisibility(handle, seconds)),
  };
}

/**
 * `redrive` with every call authorised for `principal` as SQS authorises it (wire.ts): the counts
 * `sqs:GetQueueAttributes` on the dead-letter queue, a start `MOVE_TASK_SOURCE_ACTIONS` on it and
 * `sqs:SendMessage` on the destination, the task list `sqs:ListMessageMoveTasks` on the source.
 */
export function guardRedrive(redrive: DeadLetterRedrive, iam: LocalIam, principal: Principal): DeadLetterRedrive {
  const check = (action: string, arn: string): void => sqsAuthorize(iam, principal, action, arn);
  const { sourceArn, destinationArn } = redrive;
  return {
    sourceArn,
    destinationArn,
    counts: async () => (check('sqs:GetQueueAttributes', sourceArn), redrive.counts()),
    start: async (maxPerSecond?: number) => {
      for (const action of MOVE_TASK_SOURCE_ACTIONS) check(action, sourceArn);
      check('sqs:SendMessage', destinationArn);
      return redrive.start(maxPerSecond);
    },
    tasks: async () => (check('sqs:ListMessageMoveTasks', sourceArn), redrive.tasks()),
  };
}

function sqsAuthorize(iam: LocalIam, principal: Principal, action: string, queueArn: string): void {
  try {
    iam.authorize(principal, action, [queueArn]);
  } catch (err) {
    if (err instanceof AccessDeniedError) throw new AccessDeniedError(err.message, SQS_DENIED_NAME);
    throw err;
  }
}

/** `scheduler` with every call authorised for `principal` (see the module comment). */
export function guardScheduler(scheduler: SchedulerPort, iam: LocalIam, principal: Principal): SchedulerPort {
  const { partition, region, account } = iam.resolver;
  const arn = (name: string, group: string | undefined): string => `arn:${partition}:scheduler:${region}:${account}:schedule/${group ?? 'default'}/${name}`;
  const withPassRole = (action: string, request: ScheduleRequest): void => {
    iam.authorize(principal, action, [arn(request.Name, request.GroupName)]);
    iam.authorize(principal, 'iam:PassRole', [request.Target.RoleArn], { 'iam:PassedToService': 'scheduler.amazonaws.com' });
  };
  return {
    createSchedule: async (request) => (withPassRole('scheduler:CreateSchedule', request), scheduler.createSchedule(request)),
    updateSchedule: async (request) => (withPassRole('scheduler:UpdateSchedule', request), scheduler.updateSchedule(request)),
    deleteSchedule: async (name, group) => (iam.authorize(principal, 'scheduler:DeleteSchedule', [arn(name, group)]), scheduler.deleteSchedule(name, group)),
    getSchedule: async (name, group) => (iam.authorize(principal, 'scheduler:GetSchedule', [arn(name, group)]), scheduler.getSchedule(name, group)),
  };
}

/**
 * The packaged template's EKS cluster name: the extract is the template packaged with serverless.yml's
 * default parameters, whose `clusterName` is `unconfigured`, so that is the name the local world's
 * EKS cluster has for IAM (its access-entry and cluster ARNs).
 */
export const PACKAGED_CLUSTER_NAME = 'unconfigured';

/**
 * `entries` with every call authorised for `principal` as EKS authorises it: DescribeAccessEntry on
 * the access entry's ARN (`access-entry/<cluster>/<type>/<account>/<name>/<id>`), ListAccessEntries
 * on the cluster's (https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonelastickubernetesservice.html).
 */
export function guardAccessEntries(entries: AccessEntries, iam: LocalIam, principal: Principal, clusterName = PACKAGED_CLUSTER_NAME): AccessEntries {
  const { partition, region, account } = iam.resolver;
  const cluster = `arn:${partition}:eks:${region}:${account}:cluster/${clusterName}`;
  const entryArn = (principalArn: string): string => {
    const [, , , , owner = account, resource = ''] = principalArn.split(':');
    const [kind = 'role', ...rest] = resource.split('/');
    return `arn:${partition}:eks:${region}:${account}:access-entry/${clusterName}/${kind}/${owner}/${rest.at(-1) ?? ''}/local`;
  };
  return {
    describe: async (principalArn) => (iam.authorize(principal, 'eks:DescribeAccessEntry', [entryArn(principalArn)]), entries.describe(principalArn)),
    listPrincipalArns: async () => (iam.authorize(principal, 'eks:ListAccessEntries', [cluster]), entries.listPrincipalArns()),
  };
}

/**
 * `describer` with every call authorised for `principal` as EKS authorises DescribeCluster: the
 * action `eks:DescribeCluster` on the cluster's ARN (`arn:<partition>:eks:<region>:<account>:cluster/<name>`,
 * the region being the one asked), https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonelastickubernetesservice.html.
 * A refusal is EKS's `AccessDeniedException`.
 */
export function guardClusterDescriber(describer: ClusterDescriber, iam: LocalIam, principal: Principal): ClusterDescriber {
  const { partition, account } = iam.resolver;
  return {
    describe: async (name, region) => (iam.authorize(principal, 'eks:DescribeCluster', [`arn:${partition}:eks:${region}:${account}:cluster/${name}`]), describer.describe(name, region)),
  };
}

/**
 * Where a due schedule delivers: Scheduler assumes the target's role (its trust policy decides,
 * with this account and the schedule's group), then sends to the queue as that role.
 */
export function scheduleDelivery(iam: LocalIam, queue: ReconcileQueue, queueArn: string): (request: ScheduleRequest) => Pick<ReconcileQueue, 'send'> {
  const { partition, region, account } = iam.resolver;
  return (request) => {
    const role = iam.roleByArn(request.Target.RoleArn);
    if (role === undefined) throw new AccessDeniedError(`scheduler.amazonaws.com is not authorized to perform: sts:AssumeRole on resource: ${request.Target.RoleArn}`);
    const sourceArn = `arn:${partition}:scheduler:${region}:${account}:schedule-group/${request.GroupName ?? 'default'}`;
    const principal = iam.assumeByService(role.logicalId, 'scheduler.amazonaws.com', { 'aws:SourceAccount': account, 'aws:SourceArn': sourceArn }, request.Name.slice(0, 64));
    return guardQueue(queue, iam, principal, queueArn);
  };
}
