/**
 * The ApiError a call throws, for asserting the simulated API server's answers: fails the test
 * when the call returns, and rethrows any other error.
 */
import { ApiError } from '../../lib/sim/api-error.js';

/** The `ApiError` `fn` throws; throws when it returns or throws something else. */
export function apiErrorOf(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('expected an ApiError');
}
