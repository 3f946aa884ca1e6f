/**
 * The local world counts requests where they cross into it, whoever sends them: the DynamoDB front
 * (every function's request, not the deployer's set-up), each function's queue and scheduler (and a
 * due schedule delivering), and the exporter's watch source.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';

import { type EmbeddedDynamo, startEmbeddedDynamo } from '../../lib/local/dynalite.js';
import type { WatchedResource } from '../../lib/exporter/resources.js';
import { RequestCounter } from '../../lib/local/request-counts.js';
import { StoreWatchSource } from '../../lib/local/store-watch-source.js';
import { VirtualClock } from '../../lib/platform/clock.js';
import { MemoryReconcileQueue } from '../../lib/queue/memory.js';
import { ObjectStore } from '../../lib/sim/store.js';
import { MemoryScheduler } from '../../lib/timer/memory-scheduler.js';
import type { ScheduleRequest } from '../../lib/timer/port.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const counter = new RequestCounter();
let dynamo: EmbeddedDynamo | undefined;

beforeAll(async () => {
  dynamo = await startEmbeddedDynamo(undefined, undefined, { requests: counter });
}, 60_000);

afterAll(async () => {
  await dynamo?.close();
});

function embedded(): EmbeddedDynamo {
  if (dynamo === undefined) throw new Error('dynalite did not start');
  return dynamo;
}

/** A wake-up at 01:00 in the timer group, as the reconcile function arms it. */
function wakeAt1(d: EmbeddedDynamo): ScheduleRequest {
  const target = d.identities.timerTarget;
  return {
    Name: 'tc-local-demo-basic-wake',
    GroupName: target.groupName,
    ScheduleExpression: 'at(2026-01-01T01:00:00)',
    ScheduleExpressionTimezone: 'UTC',
    FlexibleTimeWindow: { Mode: 'OFF' },
    ActionAfterCompletion: 'DELETE',
    Target: { Arn: target.queueArn, RoleArn: target.schedulerRoleArn, Input: JSON.stringify({ key: 'local/demo/basic', reason: 'timer:wake', enqueuedAtMs: T0 }) },
  };
}

describe('requests are counted at the boundary', () => {
  it("a function's DynamoDB requests count, refused or not; the deployer's set-up does not", async () => {
    // Prepare
    const d = embedded();
    const before = counter.snapshot();
    const key = { pk: { S: 'local/demo/basic' }, sk: { S: 'state' } };
    // Act
    await d.client.send(new GetItemCommand({ TableName: d.tableName, Key: key }));
    await d.identities.dynamo('reconcile').send(new GetItemCommand({ TableName: d.tableName, Key: key }));
    // The timer function has no DynamoDB grant at all: refused, yet counted.
    await expect(d.identities.dynamo('timer').send(new GetItemCommand({ TableName: d.tableName, Key: key }))).rejects.toThrow();
    // Assess
    expect(counter.since(before)).toMatchObject({ dynamodb: 2, apiServer: 0 });
  });

  it("a function's queue and scheduler requests count, and so does a due schedule's delivery", async () => {
    // Prepare
    const d = embedded();
    const clock = new VirtualClock(T0);
    const queue = new MemoryReconcileQueue({ clock });
    const scheduler = new MemoryScheduler({ clock, queue, deliverTo: d.identities.deliverTo(queue) });
    const before = counter.snapshot();
    const messages = Array.from({ length: 12 }, (_, i) => ({ message: { key: `local/demo/tc-${i}`, reason: 'sweep', enqueuedAtMs: T0 } }));
    // Act: 2 SendMessageBatch, 1 receive; 1 CreateSchedule, 1 refused (the sweep may not arm timers); the delivery at 01:00.
    await d.identities.queue('sweep', queue).send(messages);
    await d.identities.queue('reconcile', queue).receive(10, 0);
    await d.identities.scheduler('reconcile', scheduler).createSchedule(wakeAt1(d));
    await expect(d.identities.scheduler('sweep', scheduler).createSchedule({ ...wakeAt1(d), Name: 'other' })).rejects.toThrow();
    await clock.advance(3_600_000);
    // Assess
    expect(counter.since(before)).toMatchObject({ sqs: 2 + 1 + 1, scheduler: 2, dynamodb: 0 });
  });

  it("the exporter's LIST pages and watch requests count", async () => {
    // Prepare
    const clock = new VirtualClock(T0);
    const store = new ObjectStore(clock);
    store.create('Namespace', { metadata: { name: 'demo' } });
    for (const name of ['a', 'b', 'c']) store.create('PersistentVolumeClaim', { metadata: { name, namespace: 'demo' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } });
    const verbs: string[] = [];
    const source = new StoreWatchSource(store, (verb) => verbs.push(verb));
    const resource: WatchedResource = { name: 'persistentvolumeclaims', kind: 'PersistentVolumeClaim', namespace: undefined, labelSelector: undefined };
    // Act: two pages, then one watch that ends at once.
    const first = await source.list(resource, { limit: 2 });
    await source.list(resource, { limit: 2, ...(first.continue === undefined ? {} : { continue: first.continue }) });
    const abort = new AbortController();
    for await (const _ of source.watch(resource, { resourceVersion: first.resourceVersion, timeoutSeconds: 60, signal: abort.signal, onOpen: () => abort.abort() })) break;
    // Assess
    expect(verbs).toEqual(['list', 'list', 'watch']);
  });
});
