/**
 * The list prices the cost model (bench/cost-model.ts) uses: AWS us-east-1 (N. Virginia), on-demand,
 * as the AWS pricing pages below list them (free tiers left out: they are per account, shared with
 * everything else in it). Each figure names its page. They were not read from those pages by this
 * code: they are the figures those pages list for 2025–2026 (DynamoDB's since its November 2024
 * on-demand price cut), checked on 2026-11-28 against third-party summaries dated 2025–2026.
 */

/** One price: dollars per `unit`, and where it is published. */
export type Price = { readonly usd: number; readonly unit: string; readonly source: string };

/** The date the prices were checked as current. */
export const PRICES_AS_OF = '2026-11-28';

/** The prices by what they pay for. */
export const PRICES = {
  /** Lambda duration, arm64, first 7.5 billion GB-s a month. */
  lambdaArmGbS: { usd: 0.0000133334, unit: 'GB-s', source: 'https://aws.amazon.com/lambda/pricing/' },
  /** Lambda duration, x86_64, first 6 billion GB-s a month (the exporter's before). */
  lambdaX86GbS: { usd: 0.0000166667, unit: 'GB-s', source: 'https://aws.amazon.com/lambda/pricing/' },
  lambdaRequest: { usd: 0.2 / 1e6, unit: 'request', source: 'https://aws.amazon.com/lambda/pricing/' },
  /** SQS standard queue, per request (a batch of up to 10 messages, each 64 KB chunk, is one). */
  sqsRequest: { usd: 0.4 / 1e6, unit: 'request', source: 'https://aws.amazon.com/sqs/pricing/' },
  /** DynamoDB on-demand, Standard table class (the November 2024 prices). */
  dynamoWru: { usd: 0.625 / 1e6, unit: 'write request unit (1 KB)', source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/' },
  dynamoRru: { usd: 0.125 / 1e6, unit: 'read request unit (4 KB, strongly consistent)', source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/' },
  schedulerInvocation: { usd: 1 / 1e6, unit: 'scheduled invocation', source: 'https://aws.amazon.com/eventbridge/pricing/' },
  /** CloudWatch custom metric, first 10 000 a month, prorated by the hour it is published in. */
  customMetricMonth: { usd: 0.3, unit: 'metric-month', source: 'https://aws.amazon.com/cloudwatch/pricing/' },
  /** EC2 m5.large (2 vCPU, 8 GiB), Linux on-demand: the node price TiDB Operator's pod is set against. */
  m5LargeHour: { usd: 0.096, unit: 'instance-hour', source: 'https://aws.amazon.com/ec2/pricing/on-demand/' },
} as const satisfies Record<string, Price>;

/** AWS bills a month as 730 hours. */
export const HOURS_PER_MONTH = 730;

/** m5.large's capacity, to price a pod's requests as its share of the node. */
export const M5_LARGE = { vcpu: 2, memoryMiB: 8192 } as const;

/**
 * TiDB Operator's controller-manager at its Helm defaults (charts/tidb-operator/values.yaml,
 * `controllerManager.resources.requests`: cpu 80m, memory 50Mi): the share of an m5.large its
 * requests reserve — the larger of its CPU share and its memory share — for a month.
 */
export function operatorPodMonthUsd(): { usd: number; cpuShare: number; memoryShare: number } {
  const cpuShare = 0.08 / M5_LARGE.vcpu;
  const memoryShare = 50 / M5_LARGE.memoryMiB;
  return { usd: Math.max(cpuShare, memoryShare) * PRICES.m5LargeHour.usd * HOURS_PER_MONTH, cpuShare, memoryShare };
}
