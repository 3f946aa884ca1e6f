/**
 * Runs the Scheduler actions (a BackupSchedule's recurring schedule) on `SchedulerPort`. A put ends
 * with the schedule exactly as the action's request whichever of create or update it takes: a create
 * that finds the name taken (a concurrent step, or an observation gone stale) updates, an update that
 * finds it gone creates, a few times at most. A delete of a schedule already gone is done.
 */

import type { ScheduleAction } from '../model/action.js';
import { ConflictError, NotFoundError, TerminalError } from '../platform/errors.js';
import type { SchedulerPort } from '../timer/port.js';

const ATTEMPTS = 4;

/** Runs `action`; throws the port's typed errors, or `TerminalError` when no scheduler is wired. */
export async function executeSchedule(scheduler: SchedulerPort | undefined, action: ScheduleAction): Promise<void> {
  if (scheduler === undefined) throw new TerminalError(`${action.kind}: this deployment has no EventBridge Scheduler wired`);
  if (action.kind === 'schedule.delete') {
    try {
      await scheduler.deleteSchedule(action.name, action.groupName);
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
    }
    return;
  }
  let update = action.exists;
  let last: unknown;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    try {
      if (update) await scheduler.updateSchedule(action.request);
      else await scheduler.createSchedule(action.request);
      return;
    } catch (err) {
      last = err;
      if (err instanceof ConflictError && !update) update = true;
      else if (err instanceof NotFoundError && update) update = false;
      else throw err;
    }
  }
  throw new ConflictError(`schedule ${action.request.Name} kept changing while it was being written`, { cause: last });
}
