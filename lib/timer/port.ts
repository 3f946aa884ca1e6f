/**
 * Timers wake a cluster key up later. They are only wake-ups: the authoritative deadline lives in
 * DynamoDB (docs/ARCHITECTURE.md, Timers), so a timer that fires early, late or twice costs one cheap step and nothing
 * else. Short waits ride on the reconcile queue's message delay; long ones on EventBridge Scheduler,
 * reached through `SchedulerPort` so a clock-driven implementation can stand in for AWS.
 */

/**
 * What a timer is for, e.g. `requeue`, `failover-tikv`, `upgrade-recheck`. One pending long timer exists
 * per (cluster key, kind): arming it again moves it.
 */
export type TimerKind = string;

/** How a wake-up was armed: a delayed queue message, or a one-time schedule created or moved. */
export type WakeUp =
  | { via: 'queue'; delaySeconds: number }
  | { via: 'schedule'; name: string; expression: string; action: 'created' | 'updated' };

/**
 * Arms and cancels wake-ups. A wake-up may arrive early (Scheduler fires with 60 s precision, and may
 * fire up to a minute before the `at()` time) or more than once; the woken step compares `now` with the
 * deadline it stored and, if it is early, simply arms a short timer again. It never trusts the wake-up
 * as proof that the deadline has passed. `wakeAt` moves a long timer wherever it is told; keeping
 * wake-ups "earlier, never later" is the caller's rule, decided against the stored `nextWakeAt`.
 */
export interface Timers {
  /**
   * Wakes `key` with reason `timer:<kind>` at `atMs`. Up to 900 s ahead (inclusive) this sends a delayed
   * queue message; further ahead it creates or moves the one-time schedule of (key, kind). A time in
   * the past wakes at once.
   */
  wakeAt(key: string, kind: TimerKind, atMs: number, nowMs: number): Promise<WakeUp>;
  /**
   * Deletes the long timer of (key, kind) if there is one. A short timer already in the queue cannot be
   * withdrawn; it arrives and finds nothing to do.
   */
  cancel(key: string, kind: TimerKind): Promise<void>;
}

/**
 * The EventBridge Scheduler request fields we use, in the SDK's own shape (`CreateScheduleCommandInput`
 * and `UpdateScheduleCommandInput` accept it as is) but with the fields we always set made required, so
 * tests can assert exactly what AWS would receive and the memory scheduler need not guess.
 */
export type ScheduleRequest = {
  Name: string;
  GroupName?: string;
  Description?: string;
  ScheduleExpression: string;
  ScheduleExpressionTimezone: string;
  FlexibleTimeWindow: { Mode: 'OFF' | 'FLEXIBLE'; MaximumWindowInMinutes?: number };
  ActionAfterCompletion: 'NONE' | 'DELETE';
  /** `ENABLED` (Scheduler's default when left out) or `DISABLED`: a disabled schedule exists and fires nothing. */
  State?: 'ENABLED' | 'DISABLED';
  /** For an SQS target: `Arn` is the queue ARN, `RoleArn` a role allowed to `sqs:SendMessage`, `Input` the body. */
  Target: { Arn: string; RoleArn: string; Input: string };
};

/**
 * The part of EventBridge Scheduler timers and BackupSchedules need. Implementations throw
 * `ConflictError` when creating a name that exists (or on a concurrent change), `NotFoundError` when
 * updating or deleting one that does not, and `TransientError`/`TerminalError` otherwise. `getSchedule`
 * answers undefined for a schedule that does not exist (Scheduler's `ResourceNotFoundException`).
 */
export interface SchedulerPort {
  createSchedule(request: ScheduleRequest): Promise<void>;
  updateSchedule(request: ScheduleRequest): Promise<void>;
  deleteSchedule(name: string, groupName?: string): Promise<void>;
  getSchedule(name: string, groupName?: string): Promise<ScheduleRequest | undefined>;
}
