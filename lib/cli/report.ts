/**
 * How long-running commands report a failure of a simulated controller: one line on stderr, and
 * the world keeps serving.
 */

/** Prints a controller failure without stopping the process. */
export function reportControllerError(controller: string, key: string, err: unknown): void {
  const text = err instanceof Error ? (err.stack ?? err.message) : String(err);
  console.error(`simulated ${controller} controller failed on ${key}: ${text}`);
}
