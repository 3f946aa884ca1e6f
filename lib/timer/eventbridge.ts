/**
 * `SchedulerPort` on Amazon EventBridge Scheduler. Requests pass through in the SDK's shape; each call
 * has a deadline and its errors leave as typed errors (`ConflictException` → `ConflictError`,
 * `ResourceNotFoundException` → `NotFoundError`, throttling and 5xx → `TransientError`).
 */

import {
  CreateScheduleCommand,
  DeleteScheduleCommand,
  GetScheduleCommand,
  UpdateScheduleCommand,
  type GetScheduleCommandOutput,
  type CreateScheduleCommandInput,
  type UpdateScheduleCommandInput,
} from '@aws-sdk/client-scheduler';

import { NotFoundError } from '../platform/errors.js';
import { callAws } from '../queue/aws-call.js';
import type { ScheduleRequest, SchedulerPort } from './port.js';

/** The commands this adapter sends. */
export type SchedulerCommand = CreateScheduleCommand | UpdateScheduleCommand | DeleteScheduleCommand | GetScheduleCommand;

/**
 * What the adapter needs from a `SchedulerClient`: `send` with an abort signal. A real client fits;
 * so does a recording fake in tests.
 */
export type SchedulerSender = {
  send(command: SchedulerCommand, options?: { abortSignal?: AbortSignal }): Promise<unknown>;
};

/** Options: the client and the deadline per call (default 5000 ms). */
export type EventBridgeSchedulerOptions = { client: SchedulerSender; callTimeoutMs?: number };

/** EventBridge Scheduler behind `SchedulerPort`; see the module comment for error mapping. */
export class EventBridgeScheduler implements SchedulerPort {
  private readonly client: SchedulerSender;
  private readonly callTimeoutMs: number;

  constructor(options: EventBridgeSchedulerOptions) {
    this.client = options.client;
    this.callTimeoutMs = options.callTimeoutMs ?? 5000;
  }

  async createSchedule(request: ScheduleRequest): Promise<void> {
    const input: CreateScheduleCommandInput = request;
    await callAws('CreateSchedule', this.callTimeoutMs, (abortSignal) =>
      this.client.send(new CreateScheduleCommand(input), { abortSignal }),
    );
  }

  async updateSchedule(request: ScheduleRequest): Promise<void> {
    const input: UpdateScheduleCommandInput = request;
    await callAws('UpdateSchedule', this.callTimeoutMs, (abortSignal) =>
      this.client.send(new UpdateScheduleCommand(input), { abortSignal }),
    );
  }

  async deleteSchedule(name: string, groupName?: string): Promise<void> {
    await callAws('DeleteSchedule', this.callTimeoutMs, (abortSignal) =>
      this.client.send(new DeleteScheduleCommand({ Name: name, GroupName: groupName }), { abortSignal }),
    );
  }

  async getSchedule(name: string, groupName?: string): Promise<ScheduleRequest | undefined> {
    let out: GetScheduleCommandOutput;
    try {
      out = (await callAws('GetSchedule', this.callTimeoutMs, (abortSignal) =>
        this.client.send(new GetScheduleCommand({ Name: name, GroupName: groupName }), { abortSignal }),
      )) as GetScheduleCommandOutput;
    } catch (err) {
      if (err instanceof NotFoundError) return undefined;
      throw err;
    }
    return fromOutput(out, name, groupName);
  }
}

/** A GetSchedule answer in the request's shape (fields Scheduler always returns for a schedule we made). */
function fromOutput(out: GetScheduleCommandOutput, name: string, groupName: string | undefined): ScheduleRequest {
  return {
    Name: out.Name ?? name,
    ...(out.GroupName ?? groupName ? { GroupName: out.GroupName ?? groupName } : {}),
    ...(out.Description === undefined ? {} : { Description: out.Description }),
    ScheduleExpression: out.ScheduleExpression ?? '',
    ScheduleExpressionTimezone: out.ScheduleExpressionTimezone ?? 'UTC',
    FlexibleTimeWindow: { Mode: out.FlexibleTimeWindow?.Mode === 'FLEXIBLE' ? 'FLEXIBLE' : 'OFF', ...(out.FlexibleTimeWindow?.MaximumWindowInMinutes === undefined ? {} : { MaximumWindowInMinutes: out.FlexibleTimeWindow.MaximumWindowInMinutes }) },
    ActionAfterCompletion: out.ActionAfterCompletion === 'DELETE' ? 'DELETE' : 'NONE',
    State: out.State === 'DISABLED' ? 'DISABLED' : 'ENABLED',
    Target: { Arn: out.Target?.Arn ?? '', RoleArn: out.Target?.RoleArn ?? '', Input: out.Target?.Input ?? '' },
  };
}
