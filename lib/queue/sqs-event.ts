/**
 * Reading an SQS event as Lambda hands it to the reconcile function, without trusting its shape: a
 * direct invoke or a test can pass anything. The event itself must be `{Records: [...]}`; each
 * record must be an object with a `messageId` and a string `body`. Pure: no I/O, never throws.
 */

/**
 * One record as the batch needs it (an `SQSRecord` fits). `receiptHandle` is kept when the record
 * has one: a step that claims its lease holds its records with it (`lib/step/lease-hold.ts`).
 */
export type SqsEventRecord = {
  readonly messageId: string;
  readonly body: string;
  readonly receiptHandle?: string;
  readonly attributes?: Readonly<Record<string, string | undefined>>;
};

/**
 * A record that cannot be stepped. `messageId` is set when the record has one: only such a record
 * can be reported as a batch item failure (Lambda fails the whole batch on an item identifier it
 * cannot match, so a record without one is logged and counted instead).
 */
export type SqsRecordProblem = {
  readonly index: number;
  readonly messageId: string | undefined;
  readonly field: string;
  readonly message: string;
};

/** The event's usable records and the problems of the others, both in record order. */
export type SqsEventRecords = {
  readonly ok: true;
  readonly records: readonly SqsEventRecord[];
  readonly problems: readonly SqsRecordProblem[];
  /** Every record's `messageId` in event order (undefined where it has none), to order a response. */
  readonly messageIds: readonly (string | undefined)[];
};

/** The event is not SQS-shaped at all: `field` names what is wrong (`event`, `Records`). */
export type SqsEventError = { readonly ok: false; readonly field: string; readonly message: string };

/**
 * Splits an SQS event into records and problems. Guarantees: never throws; every element of
 * `Records` is either a record (an object with a non-empty string `messageId` and a string `body`)
 * or a problem naming the field, e.g. `Records[2].body`.
 */
export function readSqsRecords(event: unknown): SqsEventRecords | SqsEventError {
  if (!isObject(event)) return { ok: false, field: 'event', message: `the event must be an SQS event {"Records": [...]}, got ${describe(event)}` };
  const list = event['Records'];
  if (!Array.isArray(list)) return { ok: false, field: 'Records', message: `Records must be an array of SQS records, got ${describe(list)}` };
  const records: SqsEventRecord[] = [];
  const problems: SqsRecordProblem[] = [];
  const messageIds: (string | undefined)[] = [];
  list.forEach((raw: unknown, index) => {
    const read = readRecord(raw, index);
    if ('problem' in read) problems.push(read.problem);
    else records.push(read.record);
    messageIds.push('problem' in read ? read.problem.messageId : read.record.messageId);
  });
  return { ok: true, records, problems, messageIds };
}

function readRecord(raw: unknown, index: number): { record: SqsEventRecord } | { problem: SqsRecordProblem } {
  const at = `Records[${index}]`;
  if (!isObject(raw)) return problem(index, undefined, at, `${at} must be an SQS record object, got ${describe(raw)}`);
  const { messageId, body, receiptHandle, attributes } = raw;
  if (typeof messageId !== 'string' || messageId === '') {
    return problem(index, undefined, `${at}.messageId`, `${at}.messageId must be a non-empty string, got ${describe(messageId)}`);
  }
  if (typeof body !== 'string') return problem(index, messageId, `${at}.body`, `${at}.body must be a string, got ${describe(body)}`);
  const handle = typeof receiptHandle === 'string' && receiptHandle !== '' ? { receiptHandle } : {};
  return { record: { messageId, body, ...handle, ...(isObject(attributes) ? { attributes: stringsOf(attributes) } : {}) } };
}

function problem(index: number, messageId: string | undefined, field: string, message: string): { problem: SqsRecordProblem } {
  return { problem: { index, messageId, field, message } };
}

/** The string-valued attributes only: SQS's are all strings, and nothing else is read from them. */
function stringsOf(attributes: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(attributes).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  return type === 'object' ? 'an object' : `a ${type}`;
}
