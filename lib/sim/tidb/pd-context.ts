/**
 * What every part of one simulated PD cluster shares: the clock, the seeded randomness, the knobs,
 * and the "something changed" signal that processes listen to (readiness, health) and the
 * invariant monitors evaluate on.
 */
import type { Clock } from '../../platform/clock.js';
import type { TidbSimKnobs } from './knobs.js';
import type { Rng } from './rng.js';

/** Shared services of one PD cluster's model. */
export type PdContext = {
  readonly clock: Clock;
  readonly rng: Rng;
  readonly knobs: TidbSimKnobs;
  /** Call after any change a process or monitor may react to. */
  changed(): void;
};

/** A model operation's refusal: the HTTP status and message the real PD would answer with. */
export type PdRefusal = { status: number; message: string };

/** Either a result or a refusal. */
export type PdResult<T = true> = { ok: T } | { refused: PdRefusal };

/** Builds a refusal. */
export function refuse(status: number, message: string): { refused: PdRefusal } {
  return { refused: { status, message } };
}
