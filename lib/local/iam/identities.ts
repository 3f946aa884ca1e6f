/**
 * Each function's identity in the local world: its own DynamoDB client (signed with the access key
 * id that names its role to the DynamoDB front), its own view of the queue and the scheduler
 * (authorised as its role), and the timer target serverless.yml gives it (the queue's ARN, the
 * scheduler role, the timer schedule group). One `FunctionIdentities` per local world.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { withoutSdkLogging } from '../../queue/aws-call.js';
import type { ReconcileQueue } from '../../queue/port.js';
import type { SchedulerPort } from '../../timer/port.js';
import { LocalIam, type Principal, loadIamExtract } from './authority.js';
import type { IamExtract } from './extract.js';
import type { AccessEntries } from '../../eks/port.js';
import { guardAccessEntries, guardQueue, guardRedrive, guardScheduler, scheduleDelivery } from './guarded-ports.js';
import type { DeadLetterRedrive } from '../../queue/redrive.js';
import { countingQueue, countingScheduler, countingSend, type RequestCounter } from '../request-counts.js';

/** The local state table's name (the template's is per stage). */
export const LOCAL_TABLE = 'tidb-reconciler-state';
/** The local reconcile queue's name. */
export const LOCAL_QUEUE = 'tidb-reconciler-reconcile';
/** The local dead-letter queue's name (the reconcile queue's with `-dlq`, as serverless.yml names it). */
export const LOCAL_DEAD_LETTER_QUEUE = `${LOCAL_QUEUE}-dlq`;

/** The local world's IAM: `extract` (default the checked-in one) with the local table and queue names. */
export function localIam(options: { readonly extract?: IamExtract; readonly tableName?: string; readonly queueName?: string } = {}): LocalIam {
  const queue = options.queueName ?? LOCAL_QUEUE;
  return new LocalIam(options.extract ?? loadIamExtract(), { names: { StateTable: options.tableName ?? LOCAL_TABLE, ReconcileQueue: queue, ReconcileDeadLetterQueue: `${queue}-dlq` } });
}

/** See the module comment. */
export class FunctionIdentities {
  private readonly clients = new Map<string, DynamoDBClient>();

  /** With `requests`, every SQS and Scheduler request of a function (or of a due schedule) is counted there. */
  constructor(
    readonly iam: LocalIam,
    private readonly dynamoEndpoint: string,
    private readonly requests?: RequestCounter,
  ) {}

  /** The principal of function `fn`. */
  principal(fn: string): Principal {
    return this.iam.functionPrincipal(fn);
  }

  /** The reconcile queue's ARN in the local world. */
  get queueArn(): string {
    return this.iam.resolver.arnOf('ReconcileQueue');
  }

  /** The dead-letter queue's ARN in the local world. */
  get deadLetterQueueArn(): string {
    return this.iam.resolver.arnOf('ReconcileDeadLetterQueue');
  }

  /** The dead-letter `redrive` as function `fn` may use it. */
  redrive(fn: string, redrive: DeadLetterRedrive): DeadLetterRedrive {
    return guardRedrive(redrive, this.iam, this.principal(fn));
  }

  /** What serverless.yml tells the functions about long timers (RECONCILE_QUEUE_ARN, SCHEDULER_ROLE_ARN, SCHEDULER_GROUP). */
  get timerTarget(): { queueArn: string; schedulerRoleArn: string; groupName: string } {
    return { queueArn: this.queueArn, schedulerRoleArn: this.iam.resolver.arnOf('SchedulerRole'), groupName: this.iam.resolver.nameOf('TimerScheduleGroup') };
  }

  /** Function `fn`'s DynamoDB client (one per function, kept). */
  dynamo(fn: string): DynamoDBClient {
    let client = this.clients.get(fn);
    if (client === undefined) {
      client = withoutSdkLogging(new DynamoDBClient({ endpoint: this.dynamoEndpoint, region: this.iam.resolver.region, credentials: this.iam.credentialsOf(fn) }));
      this.clients.set(fn, client);
    }
    return client;
  }

  /** `queue` as function `fn` may use it. */
  queue(fn: string, queue: ReconcileQueue): ReconcileQueue {
    const guarded = guardQueue(queue, this.iam, this.principal(fn), this.queueArn);
    return this.requests === undefined ? guarded : countingQueue(guarded, this.requests);
  }

  /** The shared `scheduler` as function `fn` may use it. */
  scheduler(fn: string, scheduler: SchedulerPort): SchedulerPort {
    const guarded = guardScheduler(scheduler, this.iam, this.principal(fn));
    return this.requests === undefined ? guarded : countingScheduler(guarded, this.requests);
  }

  /** The cluster's EKS access entries as function `fn` may read them. */
  accessEntries(fn: string, entries: AccessEntries): AccessEntries {
    return guardAccessEntries(entries, this.iam, this.principal(fn));
  }

  /** Where a due schedule delivers: `queue`, as the role its target names (MemoryScheduler's `deliverTo`). */
  deliverTo(queue: ReconcileQueue): ReturnType<typeof scheduleDelivery> {
    const deliver = scheduleDelivery(this.iam, queue, this.queueArn);
    const requests = this.requests;
    return requests === undefined ? deliver : (request) => countingSend(deliver(request), requests);
  }

  /** Closes every client. */
  destroy(): void {
    for (const client of this.clients.values()) client.destroy();
    this.clients.clear();
  }
}
