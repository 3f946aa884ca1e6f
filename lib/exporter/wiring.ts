/**
 * The real ends of the exporter, built from its settings: the API server (EKS token auth on Lambda,
 * the default kubeconfig lookup in a pod), the SQS reconcile queue and the DynamoDB state table.
 * AWS credentials and region come from the SDK's default chain (the Lambda role, or EKS Pod
 * Identity / IRSA in the pod); nothing here reads or logs a secret.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { EksTokenSource, credentialsFromEnv, eksKubeConfig, kubeConfigFromFile } from '../kube/auth.js';
import type { Clock } from '../platform/clock.js';
import { withoutSdkLogging } from '../queue/aws-call.js';
import { SqsReconcileQueue } from '../queue/sqs.js';
import type { ReconcileQueue } from '../queue/port.js';
import { DynamoStateStore } from '../state/dynamo.js';
import type { StateStore } from '../state/port.js';
import type { ExporterSettings, KubeAccess } from './config.js';

/** The long-lived ends: built once per process (a warm Lambda container keeps them). */
export type ExporterEnds = { kubeConfig: KubeConfig; queue: ReconcileQueue; state: StateStore };

/** Builds the real ends for `settings`; the EKS token source re-mints on `clock` as tokens age. */
export function realEnds(settings: ExporterSettings, clock: Clock): ExporterEnds {
  const queue = new SqsReconcileQueue({ client: withoutSdkLogging(new SQSClient({})), queueUrl: settings.queueUrl });
  const state = new DynamoStateStore(withoutSdkLogging(new DynamoDBClient({})), { tableName: settings.stateTable });
  return { kubeConfig: kubeConfigFor(settings.kube, clock), queue, state };
}

function kubeConfigFor(access: KubeAccess, clock: Clock): KubeConfig {
  if (access.kind === 'default') return kubeConfigFromFile();
  const tokens = new EksTokenSource({ clusterName: access.clusterName, region: access.region, credentials: () => credentialsFromEnv(), clock });
  return eksKubeConfig({ endpoint: access.endpoint, caData: access.caData, clusterName: access.clusterName, tokens });
}
