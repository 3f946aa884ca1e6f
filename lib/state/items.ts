/**
 * Conversions between table items (as the DocumentClient returns them) and the port's records.
 * Reads are defensive: an item missing an optional attribute reads as its default, and a required
 * attribute of the wrong type is a `TerminalError` naming the attribute, never a silent NaN.
 */

import { TerminalError } from '../platform/errors.js';
import type { Requester, StateRecord, StepOutcomeKind, StepSummary, StoreIdRecord, StoredDeadline, StoredHistoryRecord, VerifiedCluster } from './port.js';
import { ATTR } from './table.js';

/** A raw item from the DocumentClient. */
export type Item = Record<string, unknown>;

const OUTCOMES: readonly StepOutcomeKind[] = ['complete', 'wait', 'retry', 'fail'];

/** The state record stored in a `state` item; `key` is passed in because older items may lack it. */
export function toStateRecord(key: string, item: Item): StateRecord {
  const owner = optString(item, ATTR.leaseOwner);
  const untilMs = optNumber(item, ATTR.leaseUntilMs);
  const lastStep = item[ATTR.lastStep];
  const expiresAtSeconds = optNumber(item, ATTR.expiresAt);
  return {
    ...(expiresAtSeconds === undefined ? {} : { expiresAtSeconds }),
    key,
    fence: optNumber(item, ATTR.fence) ?? 0,
    lease: owner !== undefined && untilMs !== undefined ? { owner, untilMs } : undefined,
    dirty: item[ATTR.dirty] === true,
    failures: optNumber(item, ATTR.failures) ?? 0,
    nextWakeAtMs: optNumber(item, ATTR.nextWakeAtMs),
    lastStep: isObject(lastStep) ? toStepSummary(lastStep) : undefined,
  };
}

/** The deadlines map of a `state` item, ordered by component, member, kind. */
export function toDeadlines(item: Item): StoredDeadline[] {
  const map = item[ATTR.deadlines];
  if (map === undefined) return [];
  if (!isObject(map)) throw new TerminalError(`state item attribute ${ATTR.deadlines} is not a map`);
  return Object.keys(map)
    .sort()
    .map((id) => {
      const entry = map[id];
      if (!isObject(entry)) throw new TerminalError(`deadline ${id} is not a map`, { field: ATTR.deadlines });
      return toDeadline(entry);
    });
}

/** The store ids map of a `state` item, ordered by component and pod. */
export function toStoreIds(item: Item): StoreIdRecord[] {
  const map = item[ATTR.storeIds];
  if (map === undefined) return [];
  if (!isObject(map)) throw new TerminalError(`state item attribute ${ATTR.storeIds} is not a map`);
  return Object.keys(map)
    .sort()
    .map((id) => {
      const entry = map[id];
      if (!isObject(entry)) throw new TerminalError(`store id ${id} is not a map`, { field: ATTR.storeIds });
      return { component: reqString(entry, 'component'), podName: reqString(entry, 'podName'), storeId: reqString(entry, 'storeId') };
    });
}

/** One deadline as stored (an entry of the deadlines map). */
export function toDeadline(item: Item): StoredDeadline {
  return {
    component: reqString(item, 'component'),
    member: reqString(item, 'member'),
    kind: reqString(item, 'kind'),
    sinceMs: reqNumber(item, 'sinceMs'),
    deadlineAtMs: reqNumber(item, 'deadlineAtMs'),
    fence: reqNumber(item, ATTR.fence),
  };
}

/** A history item read back from a Query. */
export function toHistory(item: Item): StoredHistoryRecord {
  const actions = item['actions'];
  const detail = item['detail'];
  return withoutUndefined({
    atMs: reqNumber(item, 'atMs'),
    fence: reqNumber(item, 'fence'),
    trigger: reqString(item, 'trigger'),
    outcome: reqOutcome(item, 'outcome'),
    actions: Array.isArray(actions) ? actions.map(String) : [],
    durationMs: reqNumber(item, 'durationMs'),
    reconcileId: optString(item, 'reconcileId'),
    requestedBy: requesterOf(item['requestedBy']),
    detail: isObject(detail) ? detail : undefined,
    expiresAtSeconds: reqNumber(item, ATTR.expiresAt),
  });
}

/** A stored `requestedBy` map, or undefined when there is none (or it is not one). */
function requesterOf(value: unknown): Requester | undefined {
  if (!isObject(value)) return undefined;
  const { arn, username } = value as Record<string, unknown>;
  return typeof arn === 'string' && typeof username === 'string' ? { arn, username } : undefined;
}

/**
 * A shallow copy without `undefined` fields, so optional fields are left out of the item instead of
 * depending on the DocumentClient's `removeUndefinedValues` setting.
 */
export function withoutUndefined<T extends object>(obj: T): T {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined)) as T;
}

function toStepSummary(item: Item): StepSummary {
  return withoutUndefined({
    atMs: reqNumber(item, 'atMs'),
    outcome: reqOutcome(item, 'outcome'),
    reconcileId: optString(item, 'reconcileId'),
    message: optString(item, 'message'),
    verified: toVerified(item['verified']),
    healthAtMs: optNumber(item, 'healthAtMs'),
    persistedRead: optNumber(item, 'persistedRead'),
  });
}

/** A stored `verified` map; anything else (absent, or written by an older version) is no verification. */
function toVerified(value: unknown): VerifiedCluster | undefined {
  if (!isObject(value)) return undefined;
  const uid = optString(value, 'uid');
  const generation = optNumber(value, 'generation');
  const fullAtMs = optNumber(value, 'fullAtMs');
  return uid === undefined || generation === undefined ? undefined : { uid, generation, ...(fullAtMs === undefined ? {} : { fullAtMs }) };
}

function isObject(v: unknown): v is Item {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function optNumber(item: Item, attr: string): number | undefined {
  const v = item[attr];
  if (v === undefined) return undefined;
  if (typeof v !== 'number') throw new TerminalError(`state item attribute ${attr} is not a number`, { field: attr });
  return v;
}

function reqNumber(item: Item, attr: string): number {
  const v = optNumber(item, attr);
  if (v === undefined) throw new TerminalError(`state item attribute ${attr} is missing`, { field: attr });
  return v;
}

function optString(item: Item, attr: string): string | undefined {
  const v = item[attr];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new TerminalError(`state item attribute ${attr} is not a string`, { field: attr });
  return v;
}

function reqString(item: Item, attr: string): string {
  const v = optString(item, attr);
  if (v === undefined) throw new TerminalError(`state item attribute ${attr} is missing`, { field: attr });
  return v;
}

function reqOutcome(item: Item, attr: string): StepOutcomeKind {
  const v = reqString(item, attr);
  const outcome = OUTCOMES.find((o) => o === v);
  if (outcome === undefined) {
    throw new TerminalError(`state item attribute ${attr} is not an outcome: ${v}`, { field: attr });
  }
  return outcome;
}
