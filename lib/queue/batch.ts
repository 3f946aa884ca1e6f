/**
 * The batch-request pattern SQS imposes on sends and deletes: at most ten entries per request, and a
 * request that "succeeds" may still report some entries as failed. Entries that failed are sent once
 * more (most partial failures are internal and pass); what still fails is reported together.
 */

import { chunk, PartialBatchError, SQS_MAX_BATCH } from './port.js';

/** One entry of a batch request: `id` is unique within its request; `label` names it in errors. */
export type BatchEntry<T> = { id: string; label: string; item: T };

/** One entry a batch request reported as not done. */
export type BatchFailure = { id: string; code: string; senderFault: boolean };

/** Sends one request (≤ 10 entries) and returns the entries it reports as failed. Throws on request errors. */
export type BatchRequest<T> = (entries: readonly BatchEntry<T>[]) => Promise<BatchFailure[]>;

/**
 * Gives each item an id (`m<index>`, unique across the whole send so errors point at the caller's list,
 * and within SQS's `[A-Za-z0-9_-]{1,80}`) and a label for error messages.
 */
export function toBatchEntries<T>(items: readonly T[], label: (item: T) => string): BatchEntry<T>[] {
  return items.map((item, i) => ({ id: `m${i}`, label: label(item), item }));
}

/**
 * Runs `request` over `entries` in batches of ten, retries the failed entries of each batch once, and
 * throws one `PartialBatchError` naming every entry (id, label and code) that failed twice. All batches are
 * attempted before throwing, so one bad batch does not hold back the others; a request that throws
 * (network, timeout) stops at once with that error.
 */
export async function runBatches<T>(
  operation: string,
  entries: readonly BatchEntry<T>[],
  request: BatchRequest<T>,
): Promise<void> {
  const lost: string[] = [];
  const labels: string[] = [];
  for (const batch of chunk(entries, SQS_MAX_BATCH)) {
    const first = await request(batch);
    if (first.length === 0) continue;
    const retry = batch.filter((e) => first.some((f) => f.id === e.id));
    const second = await request(retry);
    for (const f of second) {
      const entry = retry.find((e) => e.id === f.id);
      lost.push(`${f.id} (${entry?.label ?? '?'}: ${f.code}${f.senderFault ? ', sender fault' : ''})`);
      if (entry) labels.push(entry.label);
    }
  }
  if (lost.length > 0) {
    throw new PartialBatchError(`${operation}: ${lost.length} entries failed after one retry: ${lost.join(', ')}`, labels);
  }
}
