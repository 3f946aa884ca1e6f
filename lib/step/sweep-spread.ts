/**
 * How the sweep spreads its triggers over its interval instead of enqueueing the whole fleet at
 * once: each key's message carries an SQS `DelaySeconds` drawn from the key itself (FNV-1a, 32 bits,
 * then MurmurHash3's finaliser, so keys that differ in one character land far apart), uniform over
 * `[0, spreadSeconds)`. Drawn from the key, the delay is the same every sweep, so each
 * cluster keeps its own phase and is stepped once per interval, interval apart; and a test can tell
 * the delay of any key. SQS takes at most 900 s (`MAX_DELAY_SECONDS`), so the spread is capped there
 * (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_SendMessageBatchRequestEntry.html).
 */
import { MAX_DELAY_SECONDS } from '../queue/port.js';

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** FNV-1a of `text`'s UTF-16 code units, as an unsigned 32-bit number. */
export function fnv1a32(text: string): number {
  let hash = FNV_OFFSET;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, FNV_PRIME);
  }
  return hash >>> 0;
}

/** MurmurHash3's 32-bit finaliser (`fmix32`): every input bit flips about half of the output bits. */
function fmix32(h: number): number {
  let x = h;
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x >>> 0;
}

/** The key's spread hash: `fnv1a32` mixed by `fmix32`, uniform over 0 … 2^32 − 1. */
export function spreadHash(key: string): number {
  return fmix32(fnv1a32(key));
}

/**
 * The whole seconds `key`'s sweep message waits before it is visible: 0 ≤ delay < the spread (the
 * spread capped at `MAX_DELAY_SECONDS`), 0 when the spread is 0 (sent at once, as before the spread).
 */
export function sweepDelaySeconds(key: string, spreadSeconds: number): number {
  const spread = Math.floor(Math.min(Math.max(spreadSeconds, 0), MAX_DELAY_SECONDS));
  if (spread === 0) return 0;
  return Math.floor((spreadHash(key) / 2 ** 32) * spread);
}
