/**
 * TiDB calls of a plan (reference §3.2), each idempotent on TiDB's side: labels are set, not added
 * to; starting or finishing the smooth upgrade when the cluster is already in that state succeeds.
 */

import type { TidbStatusPort } from '../components/port.js';
import type { TidbAction } from '../model/action.js';
import { TerminalError } from '../platform/errors.js';

/** Runs one TiDB action; throws the client's typed errors. */
export async function executeTidb(tidb: TidbStatusPort, action: TidbAction): Promise<void> {
  switch (action.kind) {
    case 'tidb.setLabels':
      return tidb.setLabels(action.pod, action.labels);
    case 'tidb.startUpgrade':
      return tidb.startUpgrade(action.pod);
    case 'tidb.finishUpgrade':
      return tidb.finishUpgrade(action.pod);
    default: {
      const never: never = action;
      throw new TerminalError(`unknown TiDB action ${JSON.stringify(never)}`);
    }
  }
}
