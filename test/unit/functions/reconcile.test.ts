import { describe, it, expect } from '@jest/globals';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { createReconcileHandler } from '../../../functions/reconcile.js';

function record(messageId: string, body: string): SQSRecord {
  return {
    messageId,
    receiptHandle: `rh-${messageId}`,
    body,
    attributes: {
      ApproximateReceiveCount: '1',
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

const context = {
  awsRequestId: 'req-1',
  functionName: 'tidb-reconciler-dev-reconcile',
  getRemainingTimeInMillis: () => 30000,
} as unknown as Context;

async function invoke(records: SQSRecord[]) {
  const lines: Record<string, unknown>[] = [];
  const handler = createReconcileHandler({ log: (line) => lines.push(line) });
  const event: SQSEvent = { Records: records };
  const response = await handler(event, context);
  return { response, lines };
}

describe('reconcile handler', () => {
  it('malformed records are reported as batch item failures with the bad field logged', async () => {
    // Prepare
    const records = [record('m1', 'not json'), record('m2', '{"key":"tidb/basic"}'), record('m3', '{"key":"eks/tidb/basic","reason":7}')];

    // Act
    const { response, lines } = await invoke(records);

    // Assess
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: 'm1' }, { itemIdentifier: 'm2' }, { itemIdentifier: 'm3' }] });
    expect(lines.map((l) => [l['messageId'], l['error'], l['field']])).toEqual([
      ['m1', 'TerminalError', 'body'],
      ['m2', 'TerminalError', 'key'],
      ['m3', 'TerminalError', 'reason'],
    ]);
  });

  it('a well-formed record is never acknowledged while no engine is wired', async () => {
    // Act
    const { response, lines } = await invoke([record('ok1', '{"key":"eks/tidb/basic","reason":"sweep"}')]);

    // Assess
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: 'ok1' }] });
    expect(lines).toHaveLength(1);
    expect(lines[0]?.['detail']).toBe('reconcile engine not available yet: eks/tidb/basic was not reconciled');
  });

  it('every record of a mixed batch is reported, in record order, one log line each', async () => {
    // Prepare
    const records = [record('a', '{"key":"eks/tidb/one"}'), record('b', '{}'), record('c', '{"key":"eks/tidb/two"}')];

    // Act
    const { response, lines } = await invoke(records);

    // Assess
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: 'a' }, { itemIdentifier: 'b' }, { itemIdentifier: 'c' }] });
    expect(lines.map((l) => l['messageId'])).toEqual(['a', 'b', 'c']);
  });

  it('an empty batch reports no failures', async () => {
    // Act
    const { response, lines } = await invoke([]);

    // Assess
    expect(response).toEqual({ batchItemFailures: [] });
    expect(lines).toEqual([]);
  });
});
