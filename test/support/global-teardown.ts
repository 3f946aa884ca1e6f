/**
 * Jest's global teardown (jest.config.js): removes the run's prebuilt command (its symlinks, not what
 * they point at). Loaded outside jest's module system, as the global setup, so it imports nothing of ours.
 */
import { rmSync } from 'node:fs';

/** Removes the temp directory the global setup built the command in (its `TIDB_RECONCILER_PREBUILT_CLI_DIR`). */
export default function globalTeardown(): void {
  const dir = process.env['TIDB_RECONCILER_PREBUILT_CLI_DIR'];
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
}
