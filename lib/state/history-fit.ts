/**
 * Keeping a history record inside DynamoDB's item limit (400 KB, attribute names and values in UTF-8).
 * A record is an audit trail built from outside text — the trigger's free-text reason, error messages
 * of failed actions — so nothing bounds it by construction; a record over the limit would fail its
 * write (`ValidationException`) and the step would leave no trace at all. Pure: no I/O.
 */

import { cutText } from '../platform/text.js';
import type { HistoryRecord } from './port.js';

/** DynamoDB's item size limit. */
export const DYNAMO_ITEM_LIMIT_BYTES = 400 * 1024;

/**
 * The budget for a record's own fields: the limit less a margin for the keys, the TTL attribute and
 * DynamoDB's per-attribute overhead, which the JSON size below does not count exactly.
 */
export const HISTORY_RECORD_BUDGET_BYTES = 350 * 1024;

// What a cut field keeps: enough to read what it was, small enough that many fit.
const TRIGGER_KEEP_BYTES = 1024;
const ACTION_KEEP_BYTES = 2048;

/**
 * The record, or a copy cut to fit `budgetBytes` of JSON. Guarantees: a record that fits is returned
 * unchanged; otherwise the trigger, then each action, then `detail`, then the list of actions are cut
 * in that order until it fits, each cut saying so in the text it leaves (`… [cut: N bytes]`), and the
 * numbers, outcome and ids are never touched.
 */
export function fitHistoryRecord(record: HistoryRecord, budgetBytes = HISTORY_RECORD_BUDGET_BYTES): HistoryRecord {
  let fitted = record;
  const cuts: ((r: HistoryRecord) => HistoryRecord)[] = [
    (r) => ({ ...r, trigger: cutText(r.trigger, TRIGGER_KEEP_BYTES) }),
    (r) => ({ ...r, actions: r.actions.map((a) => cutText(a, ACTION_KEEP_BYTES)) }),
    (r) => ({ ...r, detail: { cut: `detail of ${jsonBytes(r.detail)} bytes left out to fit the item limit` } }),
    (r) => ({ ...r, actions: keepActions(r, budgetBytes) }),
  ];
  for (const cut of cuts) {
    if (jsonBytes(fitted) <= budgetBytes) return fitted;
    fitted = cut(fitted);
  }
  return fitted;
}

/** The longest prefix of the actions that fits, then one line counting the rest. */
function keepActions(record: HistoryRecord, budgetBytes: number): string[] {
  const base = jsonBytes({ ...record, actions: [] }) + 64;
  const kept: string[] = [];
  let used = base;
  for (const action of record.actions) {
    const size = jsonBytes(action) + 1;
    if (used + size > budgetBytes) break;
    kept.push(action);
    used += size;
  }
  const rest = record.actions.length - kept.length;
  return rest === 0 ? kept : [...kept, `… and ${rest} more actions left out to fit the item limit`];
}

function jsonBytes(value: unknown): number {
  return value === undefined ? 0 : Buffer.byteLength(JSON.stringify(value), 'utf8');
}
