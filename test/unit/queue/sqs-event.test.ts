import { describe, it, expect } from '@jest/globals';

import { readSqsRecords } from '../../../lib/queue/sqs-event.js';

const good = { messageId: 'm1', body: '{"key":"eks/demo/basic"}', attributes: { SentTimestamp: '1767225600000' } };

describe('readSqsRecords', () => {
  it.each([
    { name: 'null is not an event', event: null, field: 'event', says: 'got null' },
    { name: 'a string is not an event', event: 'Records', field: 'event', says: 'got a string' },
    { name: 'an array is not an event', event: [good], field: 'event', says: 'got an array' },
    { name: 'an event without Records names Records', event: { detail: {} }, field: 'Records', says: 'Records must be an array of SQS records, got nothing' },
    { name: 'Records that is not an array names Records', event: { Records: good }, field: 'Records', says: 'got an object' },
  ])('$name', ({ event, field, says }) => {
    // Act
    const result = readSqsRecords(event);

    // Assess
    expect(result).toEqual({ ok: false, field, message: expect.stringContaining(says) });
  });

  it.each([
    { name: 'a null record has no messageId to report', record: null, messageId: undefined, field: 'Records[1]', says: 'got null' },
    { name: 'a record without a messageId', record: { body: '{}' }, messageId: undefined, field: 'Records[1].messageId', says: 'got nothing' },
    { name: 'an empty messageId', record: { messageId: '', body: '{}' }, messageId: undefined, field: 'Records[1].messageId', says: 'non-empty string' },
    { name: 'a number body', record: { messageId: 'm2', body: 7 }, messageId: 'm2', field: 'Records[1].body', says: 'got a number' },
    { name: 'a missing body', record: { messageId: 'm2' }, messageId: 'm2', field: 'Records[1].body', says: 'got nothing' },
  ])('only the bad record is a problem: $name', ({ record, messageId, field, says }) => {
    // Act
    const result = readSqsRecords({ Records: [good, record] });

    // Assess
    expect(result).toEqual({
      ok: true,
      records: [good],
      problems: [{ index: 1, messageId, field, message: expect.stringContaining(says) }],
      messageIds: ['m1', messageId],
    });
  });

  it('attributes other than strings are left out, so a record built by hand cannot break the batch', () => {
    // Act
    const result = readSqsRecords({ Records: [{ messageId: 'm1', body: '{}', attributes: { SentTimestamp: 5, ApproximateReceiveCount: '1' } }] });

    // Assess
    expect(result).toMatchObject({ ok: true, records: [{ messageId: 'm1', body: '{}', attributes: { ApproximateReceiveCount: '1' } }], problems: [] });
  });

  it('a record keeps its receipt handle, so a step can hold it for its lease', () => {
    // Act
    const result = readSqsRecords({ Records: [{ ...good, receiptHandle: 'rh-1' }] });

    // Assess
    expect(result.ok && result.records.map((r) => r.receiptHandle)).toEqual(['rh-1']);
  });
});
