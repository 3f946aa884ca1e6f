import { describe, it, expect } from '@jest/globals';
import type { SQSEvent, SQSRecord } from 'aws-lambda';

import { createReconcileHandler } from '../../../functions/reconcile.js';
import { TransientError } from '../../../lib/platform/errors.js';
import { METRIC } from '../../../lib/platform/metrics.js';
import { lambdaRuntime } from '../../../lib/wiring/ports.js';
import { fakeRuntime, lambdaContext, tidbCluster, type FakeRuntime } from './runtime-fakes.js';

function record(messageId: string, body: string): SQSRecord {
  return {
    messageId,
    receiptHandle: `rh-${messageId}`,
    body,
    attributes: {
      ApproximateReceiveCount: '2',
      SentTimestamp: '1767225600000',
      SenderId: 'AIDAEXAMPLE',
      ApproximateFirstReceiveTimestamp: '1767225600001',
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:tidb-reconciler-dev-reconcile',
    awsRegion: 'us-east-1',
  };
}

async function invoke(fake: FakeRuntime, records: SQSRecord[]) {
  const handler = createReconcileHandler({ runtime: () => fake.runtime });
  const event: SQSEvent = { Records: records };
  return handler(event, lambdaContext());
}

describe('reconcile handler', () => {
  it.each([
    { name: 'a body that is not JSON is left for the DLQ, naming body', body: 'not json', field: 'body' },
    { name: 'a key without the Kubernetes cluster is left for the DLQ, naming key', body: '{"key":"tidb/basic"}', field: 'key' },
    { name: 'a reason that is not a string is left for the DLQ, naming reason', body: '{"key":"eks-test/tidb/basic","reason":7}', field: 'reason' },
  ])('$name', async ({ body, field }) => {
    // Prepare
    const fake = fakeRuntime();

    // Act
    const response = await invoke(fake, [record('m1', body)]);

    // Assess
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: 'm1' }] });
    expect(fake.logger.lines.filter((l) => l.level === 'error').map((l) => [l.fields['messageId'], l.fields['field'], l.fields['receiveCount']])).toEqual([['m1', field, '2']]);
    expect(fake.metrics.total(METRIC.malformedMessages)).toBe(1);
    expect(await fake.state.get('eks-test/tidb/basic')).toBeUndefined();
  });

  it.each([
    { name: 'a 100 KB key', body: JSON.stringify({ key: `eks-test/${'n'.repeat(102_400)}/basic` }), field: 'key.namespace', size: '102400 bytes' },
    { name: 'a 100 KB body that is not JSON', body: `{${'x'.repeat(102_400)}`, field: 'body', size: '102401 bytes' },
  ])('$name is echoed into the error log line clipped to 1 KB, with its size', async ({ body, field, size }) => {
    // Prepare
    const fake = fakeRuntime();

    // Act
    await invoke(fake, [record('m1', body)]);

    // Assess
    const errors = fake.logger.lines.filter((l) => l.level === 'error');
    expect(errors.map((l) => l.fields['field'])).toEqual([field]);
    const line = JSON.stringify(errors[0]);
    expect(Buffer.byteLength(line)).toBeLessThan(1_500);
    expect(line).toContain(size);
  });

  it('a well-formed record whose step ran is acknowledged', async () => {
    // Prepare
    const fake = fakeRuntime([tidbCluster('basic')]);

    // Act
    const response = await invoke(fake, [record('ok1', '{"key":"eks-test/demo/basic","reason":"watch"}')]);

    // Assess
    expect(response).toEqual({ batchItemFailures: [] });
    expect(fake.metrics.total(METRIC.steps)).toBe(1);
    expect((await fake.state.get('eks-test/demo/basic'))?.lastStep?.outcome).not.toBe('fail');
  });

  it('a record whose step cannot claim its lease is left for redelivery', async () => {
    // Prepare
    const fake = fakeRuntime([tidbCluster('basic')]);
    fake.state.claim = async () => {
      throw new TransientError('claim: DynamoDB is unreachable');
    };

    // Act
    const response = await invoke(fake, [record('m1', '{"key":"eks-test/demo/basic"}')]);

    // Assess
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: 'm1' }] });
  });

  it('the failures of a mixed batch are reported in record order', async () => {
    // Prepare
    const fake = fakeRuntime([tidbCluster('one'), tidbCluster('two')]);
    const records = [record('a', '{}'), record('b', '{"key":"eks-test/demo/one"}'), record('c', '[1]'), record('d', '{"key":"eks-test/demo/two"}')];

    // Act
    const response = await invoke(fake, records);

    // Assess
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: 'a' }, { itemIdentifier: 'c' }] });
    expect(fake.metrics.total(METRIC.steps)).toBe(2);
  });

  it('a batch mixing good and bad records steps the good ones and reports only the bad ones that have an id', async () => {
    // Prepare
    const fake = fakeRuntime([tidbCluster('one'), tidbCluster('two')]);
    const event = {
      Records: [
        record('foreign', '{"key":"other-eks/demo/one","reason":"watch"}'),
        record('one', '{"key":"eks-test/demo/one"}'),
        null,
        { ...record('number', ''), body: 42 },
        { body: '{"key":"eks-test/demo/two"}' },
        record('two', '{"key":"eks-test/demo/two"}'),
      ],
    };
    const handler = createReconcileHandler({ runtime: () => fake.runtime });

    // Act
    const response = await handler(event as unknown as SQSEvent, lambdaContext());

    // Assess
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: 'foreign' }, { itemIdentifier: 'number' }] });
    expect(fake.metrics.total(METRIC.steps)).toBe(2);
    expect(fake.metrics.total(METRIC.malformedMessages)).toBe(4);
    const errors = fake.logger.lines.filter((l) => l.level === 'error').map((l) => l.fields['field']);
    expect(errors).toEqual(['Records[2]', 'Records[3].body', 'Records[4].messageId', 'key.k8sCluster']);
    expect(await fake.state.get('other-eks/demo/one')).toBeUndefined();
  });

  it.each([
    { name: 'no Records', event: {}, field: 'Records' },
    { name: 'Records is null', event: { Records: null }, field: 'Records' },
    { name: 'the event is null', event: null, field: 'event' },
  ])('an event that is not SQS-shaped fails with an error naming the field, never a TypeError: $name', async ({ event, field }) => {
    // Prepare
    const fake = fakeRuntime();
    const handler = createReconcileHandler({ runtime: () => fake.runtime });

    // Act
    const run = handler(event as unknown as SQSEvent, lambdaContext());

    // Assess
    await expect(run).rejects.toMatchObject({ name: 'TerminalError', field });
    await expect(run).rejects.not.toBeInstanceOf(TypeError);
    expect(fake.metrics.total(METRIC.steps)).toBe(0);
  });

  it('an empty batch reports no failures', async () => {
    // Act
    const response = await invoke(fakeRuntime(), []);

    // Assess
    expect(response).toEqual({ batchItemFailures: [] });
  });

  it('without its configuration the invocation fails naming the missing variables, so the batch is redelivered', async () => {
    // Prepare
    const handler = createReconcileHandler({ runtime: () => lambdaRuntime({}) });

    // Act
    const run = handler({ Records: [record('m1', '{"key":"eks-test/demo/basic"}')] }, lambdaContext());

    // Assess
    await expect(run).rejects.toThrow(/CLUSTER_NAME: not set.*KUBE_ENDPOINT: not set.*STATE_TABLE: not set/);
  });
});
