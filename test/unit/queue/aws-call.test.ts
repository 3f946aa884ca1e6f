/**
 * The SDK clients' logger middleware: with no logger the project configures, every call would
 * still build a filtered copy of its input and output for a log entry nobody writes.
 */
import { describe, expect, it, jest } from '@jest/globals';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { HttpResponse } from '@smithy/protocol-http';
import { Readable } from 'node:stream';

import { withoutSdkLogging } from '../../../lib/queue/aws-call.js';

/** A DynamoDB client answering every call with an empty GetItem result, its logger's `info` watched. */
function clientWithWatchedLogger() {
  const info = jest.fn();
  const logger = { debug: () => undefined, info, warn: () => undefined, error: () => undefined };
  const requestHandler = {
    handle: async () => ({ response: new HttpResponse({ statusCode: 200, headers: { 'content-type': 'application/x-amz-json-1.0' }, body: Readable.from([Buffer.from('{}')]) }) }),
  };
  const client = new DynamoDBClient({ region: 'us-east-1', credentials: { accessKeyId: 'a', secretAccessKey: 'b' }, logger, requestHandler });
  return { client, info };
}

const getItem = new GetItemCommand({ TableName: 't', Key: { pk: { S: 'k' } } });

describe('withoutSdkLogging', () => {
  it('a plain client hands every call to its logger (what the middleware costs)', async () => {
    // Prepare
    const { client, info } = clientWithWatchedLogger();
    // Act
    await client.send(getItem);
    // Assess
    expect(info).toHaveBeenCalledTimes(1);
  });

  it('the same client without SDK logging answers the call and builds no log entry', async () => {
    // Prepare
    const { client, info } = clientWithWatchedLogger();
    // Act
    const out = await withoutSdkLogging(client).send(getItem);
    // Assess
    expect(out.$metadata.httpStatusCode).toBe(200);
    expect(info).not.toHaveBeenCalled();
  });
});
