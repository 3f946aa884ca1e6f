/**
 * How DynamoDB failures reach the step engine: a lost condition is a conflict, anything that can
 * pass on its own is transient, a rejected request is terminal, and the SDK error stays as `cause`.
 */

import { describe, it, expect } from '@jest/globals';
import { ConditionalCheckFailedException, ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { ConflictError, TerminalError, TransientError } from '../../lib/platform/errors.js';
import { mapDynamoError } from '../../lib/state/errors.js';

const sdkError = (name: string, fault: 'client' | 'server', status = fault === 'client' ? 400 : 500): Error =>
  Object.assign(new Error(name), { name, $fault: fault, $metadata: { httpStatusCode: status } });

const networkError = (code: string): Error => Object.assign(new Error(`connect ${code}`), { code });

const conditionFailed = new ConditionalCheckFailedException({ message: 'conditional request failed', $metadata: {} });
const throughputExceeded = new ProvisionedThroughputExceededException({ message: 'slow down', $metadata: {} });

describe('DynamoDB error mapping', () => {
  it.each([
    { name: 'a failed condition is a conflict', err: conditionFailed, type: ConflictError },
    { name: 'throughput exceeded is transient', err: throughputExceeded, type: TransientError },
    { name: 'throttling is transient', err: sdkError('ThrottlingException', 'client', 400), type: TransientError },
    { name: 'a 500 is transient', err: sdkError('InternalServerError', 'server', 500), type: TransientError },
    { name: 'an unnamed 503 is transient', err: sdkError('Error', 'server', 503), type: TransientError },
    { name: 'a refused connection is transient', err: networkError('ECONNREFUSED'), type: TransientError },
    { name: 'a timed-out call is transient', err: new DOMException('timed out', 'TimeoutError'), type: TransientError },
    { name: 'an aborted call is transient', err: new DOMException('aborted', 'AbortError'), type: TransientError },
    { name: 'a validation error is terminal', err: sdkError('ValidationException', 'client'), type: TerminalError },
    { name: 'a missing table is terminal', err: sdkError('ResourceNotFoundException', 'client'), type: TerminalError },
    { name: 'an unknown 4xx is terminal', err: sdkError('SomethingNew', 'client', 400), type: TerminalError },
    { name: 'an unknown non-SDK error is transient', err: new Error('socket hang up'), type: TransientError },
  ])('$name', ({ err, type }) => {
    const mapped = mapDynamoError(err, 'claim eks/ns/tc');

    expect(mapped).toBeInstanceOf(type);
    expect(mapped.cause).toBe(err);
    expect(mapped.message).toMatch(/^claim eks\/ns\/tc: /);
  });

  it('an error that is already typed passes through unchanged', () => {
    const typed = new TerminalError('bad key');

    expect(mapDynamoError(typed, 'get')).toBe(typed);
  });
});
