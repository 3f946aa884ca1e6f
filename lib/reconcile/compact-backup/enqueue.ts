/**
 * Which CompactBackup events are worth a step, as v1's `updateCompact`: every event except of a
 * Complete or Failed one (nothing more happens to those). A deleted one always counts (the caller's
 * rule), so its step forgets the key.
 */

import type { CompactBackup } from './types.js';

/** Whether a CompactBackup event enqueues: not when its state is Complete or Failed. */
export function shouldEnqueueCompact(compact: CompactBackup): boolean {
  const state = compact.status?.state ?? '';
  return state !== 'Complete' && state !== 'Failed';
}
