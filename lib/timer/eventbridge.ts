/**
 * `SchedulerPort` on Amazon EventBridge Scheduler. Requests pass through in the SDK's shape; each call
 * has a deadline and its errors leave as typed errors (`ConflictException` → `ConflictError`,
 * `ResourceNotFoundException` → `NotFoundError`, throttling and 5xx → `TransientError`).
 */

import {
  CreateScheduleCommand,
  DeleteScheduleCommand,
  UpdateScheduleCommand,
  type CreateScheduleCommandInput,
  type UpdateScheduleCommandInput,
} from '@aws-sdk/client-scheduler';

import { callAws } from '../queue/aws-call.js';
import type { ScheduleRequest, SchedulerPort } from './port.js';

/** The commands this adapter sends. */
export type SchedulerCommand = CreateScheduleCommand | UpdateScheduleCommand | DeleteScheduleCommand;

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
}
