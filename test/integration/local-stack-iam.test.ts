/**
 * The local stack (`npm start`) runs each function as its own role behind the IAM fronts: with a
 * TidbCluster in the simulated world, the poller (reconcile's event source mapping), the reconcile
 * steps, the exporter and the sweep on a short rate all make their calls as their own roles, and
 * none is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

import { type LocalStack, startLocalStack } from '../../lib/local/local-stack.js';
import { silentLogger } from '../../lib/platform/logger.js';

let stack: LocalStack;

/** Waits (real time) until `done` holds, at most `timeoutMs`. */
async function until(done: () => boolean, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!done() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 100));
}

const used = (principal: string): string[] => [...(stack.iam.used.get(principal) ?? [])].sort();

/** What one sweep does as its role: reads the states and the exporter's watched-until mark, enqueues the cluster. */
const SWEEP_ACTIONS = ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'sqs:SendMessage'];

beforeAll(async () => {
  stack = await startLocalStack({ logger: silentLogger, sweepIntervalMs: 1000 });
  stack.world?.store.create('Namespace', { metadata: { name: 'demo' } });
  stack.world?.store.create('TidbCluster', {
    apiVersion: 'pingcap.com/v1alpha1',
    kind: 'TidbCluster',
    metadata: { name: 'basic', namespace: 'demo' },
    spec: { version: 'v8.5.0', discovery: {}, pd: { baseImage: 'pingcap/pd', replicas: 1, requests: { storage: '1Gi' } } },
  });
  // Until each function has done what the tests below read (not a fixed wait: the sweep runs every second).
  await until(() => SWEEP_ACTIONS.every((a) => used('sweep').includes(a)) && used('reconcile').includes('sqs:DeleteMessage') && used('exporter').includes('dynamodb:PutItem'), 60_000);
}, 90_000);

afterAll(async () => {
  await stack?.stop();
});

describe('npm start under IAM', () => {
  it.each([
    { principal: 'sweep', actions: SWEEP_ACTIONS },
    { principal: 'scheduler.amazonaws.com:RateScheduleRole', actions: ['lambda:InvokeFunction'] },
  ])('$principal made exactly $actions', ({ principal, actions }) => {
    expect(used(principal)).toEqual(actions);
  });

  it('reconcile received, stepped and deleted as its own role; the exporter checkpointed as its own', () => {
    expect(used('reconcile')).toEqual(expect.arrayContaining(['dynamodb:UpdateItem', 'sqs:ReceiveMessage', 'sqs:DeleteMessage']));
    expect(used('exporter')).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:PutItem', 'sqs:SendMessage']));
  });

  it('refused no call', () => {
    expect(stack.iam.denials).toEqual([]);
  });
});
