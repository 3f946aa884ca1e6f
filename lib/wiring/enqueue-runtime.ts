/**
 * The Lambda runtime of a function that only enqueues (the timer function): the same environment
 * checked as `lambdaRuntime` checks it, so a misconfigured deployment fails the same way naming every
 * bad variable, but only the SQS client is built. Kept apart from `ports.ts` so that the function's
 * bundle carries and loads no Kubernetes, DynamoDB or Scheduler client.
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import { RealClock } from '../platform/clock.js';
import { parseConfig } from '../platform/config.js';
import { PowertoolsLogger } from '../platform/logger.js';
import { PowertoolsMetrics } from '../platform/metrics.js';
import { withoutSdkLogging } from '../queue/aws-call.js';
import { SqsReconcileQueue } from '../queue/sqs.js';
import { lambdaSettings } from './lambda-env.js';
import type { Runtime } from './ports.js';

/**
 * What a function that only enqueues uses of a runtime; `watchNamespaces` is the configuration's
 * (`WATCH_NAMESPACES`: keys outside them are refused).
 */
export type EnqueueRuntime = Pick<Runtime, 'k8sCluster' | 'clock' | 'logger' | 'metrics' | 'queue'> & {
  readonly watchNamespaces?: readonly string[];
  /** Every registered EKS cluster when there are several (`EKS_CLUSTERS`, docs/adr/0027): a key may name any of them. */
  readonly k8sClusters?: readonly string[];
};

/** The enqueue-only runtime from `env`; throws `ConfigError` exactly as `lambdaRuntime` does. */
export function lambdaEnqueueRuntime(env: NodeJS.ProcessEnv = process.env): EnqueueRuntime {
  const { watchNamespaces } = parseConfig(env);
  const s = lambdaSettings(env);
  return {
    k8sCluster: s.clusterName,
    ...(s.eksClusters.length > 1 ? { k8sClusters: s.eksClusters.map((c) => c.name) } : {}),
    ...(watchNamespaces === undefined ? {} : { watchNamespaces }),
    clock: new RealClock(),
    logger: new PowertoolsLogger(),
    metrics: new PowertoolsMetrics(),
    queue: new SqsReconcileQueue({ client: withoutSdkLogging(new SQSClient({ region: s.region })), queueUrl: s.queueUrl }),
  };
}
