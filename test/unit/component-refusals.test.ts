import { describe, expect, it } from '@jest/globals';

import { ComponentCaller } from '../../lib/components/caller.js';
import { PumpClient } from '../../lib/components/pump.js';
import { TicdcClient } from '../../lib/components/ticdc.js';
import { TidbStatusClient } from '../../lib/components/tidb.js';
import type { ComponentHttp, ComponentRequest } from '../../lib/components/transport.js';
import { PdClient } from '../../lib/pd/client.js';
import { readPump } from '../../lib/wiring/ticdc-view.js';
import { VirtualClock } from '../../lib/platform/clock.js';
import { outcomeForError } from '../../lib/step/error-outcome.js';
import { planSchedule } from '../../lib/step/schedule.js';
import { T0 } from '../support/fixtures.js';

type Clients = { pd: PdClient; tidb: TidbStatusClient; ticdc: TicdcClient; pump: PumpClient };
type Answer = { status: number; text: string };

const target = { namespace: 'demo', tcName: 'basic' };
const json = (v: unknown): string => JSON.stringify(v);

/** Every client over one component port that answers `answer` to every request, counting them. */
function clientsAnswering(answer: Answer): Clients & { sent: ComponentRequest[] } {
  const sent: ComponentRequest[] = [];
  const http: ComponentHttp = {
    send: async (_endpoint, req) => {
      sent.push(req);
      return answer;
    },
  };
  const caller = new ComponentCaller(http, { clock: new VirtualClock(T0), random: () => 0.5 });
  return { sent, pd: new PdClient(caller, target), tidb: new TidbStatusClient(caller, target), ticdc: new TicdcClient(caller, target), pump: new PumpClient(caller, target) };
}

/** The step's commit arithmetic for a step that failed with `err` while acting. */
function scheduleAfter(err: unknown) {
  const outcome = outcomeForError(err, 'act');
  const schedule = planSchedule({
    outcome,
    planWakeAtMs: undefined,
    nowMs: T0,
    claimed: { failures: 0, nextWakeAtMs: undefined, lastStep: undefined },
    trigger: { reason: 'watch' },
    backoff: { baseMs: 1_000, maxMs: 100_000, jitterRatio: 0 },
    random: () => 0,
  });
  return { outcome, schedule };
}

const PD_STORES_NOT_ENOUGH = json('[PD:cluster:ErrStoresNotEnough]can not remove store 4 since the number of up stores would be 2 while need 3');
const PD_NO_LEADER_STORE = json("[PD:core:ErrNoStoreForRegionLeader]can't remove store 4, because no store for the region leader");
const PD_STORE_REMOVED = json(['[PD:core:ErrStoreRemoved]store 4 has been removed', 'set state Up first']);
const cdcError = (code: string, message: string): string => json({ error_msg: `[${code}]${message}`, error_code: code });
const pumpError = (message: string): string => json({ message, code: 3, data: null });

describe('a refusal time can lift is retried with backoff: the step is rescheduled', () => {
  it.each([
    { name: 'PD DELETE /store: too few Up stores would remain (400 ErrStoresNotEnough)', answer: { status: 400, text: PD_STORES_NOT_ENOUGH }, call: (c: Clients) => c.pd.deleteStore('4') },
    { name: 'PD DELETE /store: every other Up store evicts leaders (400 ErrNoStoreForRegionLeader)', answer: { status: 400, text: PD_NO_LEADER_STORE }, call: (c: Clients) => c.pd.deleteStore('4') },
    { name: 'PD DELETE /store: the store turned Tombstone meanwhile (410 ErrStoreRemoved)', answer: { status: 410, text: PD_STORE_REMOVED }, call: (c: Clients) => c.pd.deleteStore('4') },
    { name: 'PD POST /store/state: the store turned Tombstone meanwhile (410)', answer: { status: 410, text: PD_STORE_REMOVED }, call: (c: Clients) => c.pd.setStoreState('4', 'Up') },
    { name: 'TiDB /upgrade/start without a PD leader (400 PD server timeout)', answer: { status: 400, text: '[tikv:9001]PD server timeout' }, call: (c: Clients) => c.tidb.startUpgrade('basic-tidb-0') },
    { name: 'TiDB /upgrade/finish without an Up TiKV store (400 Region is unavailable)', answer: { status: 400, text: '[tikv:9005]Region is unavailable' }, call: (c: Clients) => c.tidb.finishUpgrade('basic-tidb-0') },
    { name: 'TiCDC drain with one capture alive (400 ErrSchedulerRequestFailed)', answer: { status: 400, text: cdcError('CDC:ErrSchedulerRequestFailed', 'scheduler request failed: only one capture alive') }, call: (c: Clients) => c.ticdc.drainCapture('basic-ticdc-0', 'c1') },
    { name: 'TiCDC drain of the owner (400 ErrSchedulerRequestFailed)', answer: { status: 400, text: cdcError('CDC:ErrSchedulerRequestFailed', 'scheduler request failed: cannot drain the owner') }, call: (c: Clients) => c.ticdc.drainCapture('basic-ticdc-0', 'c1') },
    { name: 'TiCDC drain of a capture that left (400 ErrCaptureNotExist)', answer: { status: 400, text: cdcError('CDC:ErrCaptureNotExist', 'capture not exists, c1') }, call: (c: Clients) => c.ticdc.drainCapture('basic-ticdc-0', 'c1') },
    { name: 'Pump close of a pausing node (200 with error code 3)', answer: { status: 200, text: pumpError("this pump's state is pausing, apply close failed!") }, call: (c: Clients) => c.pump.offline('basic-pump-0:8250') },
    { name: 'Pump /status that could not read the registry (200, status null, ErrMsg)', answer: { status: 200, text: json({ status: null, CommitTS: 0, ErrMsg: 'get TSO failed: no leader' }) }, call: (c: Clients) => c.pump.getNodes('basic-pump-0') },
  ])('$name', async ({ answer, call }) => {
    // Prepare
    const clients = clientsAnswering(answer);
    // Act
    const err = await call(clients).then(
      () => undefined,
      (e: unknown) => e,
    );
    const { outcome, schedule } = scheduleAfter(err);
    // Assess: sent once (no hammering inside the call), a retryable failure, a backoff wake-up armed
    expect(err).toBeInstanceOf(Error);
    expect(clients.sent).toHaveLength(1);
    expect(outcome).toMatchObject({ kind: 'fail', terminal: false });
    expect(schedule.armAtMs).toBe(T0 + 1_000);
  });
});

describe('a request no retry can fix stays terminal: nothing is scheduled', () => {
  it.each([
    { name: 'PD DELETE /store answered 400 for a malformed id', answer: { status: 400, text: json('[PD:apiutil:ErrParseUint64]invalid store id') }, call: (c: Clients) => c.pd.deleteStore('4') },
    { name: 'PD store labels with an invalid key (400)', answer: { status: 400, text: json('[PD:core:ErrInvalidLabelKey]invalid label key z!') }, call: (c: Clients) => c.pd.setStoreLabels('4', { 'z!': 'a' }) },
    { name: 'TiDB /upgrade/start refusing the method (400 This API only support POST method)', answer: { status: 400, text: 'This API only support POST method' }, call: (c: Clients) => c.tidb.startUpgrade('basic-tidb-0') },
    { name: 'TiDB /labels with a malformed body (400)', answer: { status: 400, text: 'invalid character' }, call: (c: Clients) => c.tidb.setLabels('basic-tidb-0', { zone: 'a' }) },
    { name: 'TiCDC drain with a malformed request (400 ErrAPIInvalidParam)', answer: { status: 400, text: cdcError('CDC:ErrAPIInvalidParam', 'invalid api parameter') }, call: (c: Clients) => c.ticdc.drainCapture('basic-ticdc-0', 'c1') },
    { name: 'Pump close of another node’s id (200 with error code 3, invalid nodeID)', answer: { status: 200, text: pumpError("invalid nodeID basic-pump-0:8250, this pump's nodeID is basic-pump-1:8250") }, call: (c: Clients) => c.pump.offline('basic-pump-0:8250') },
  ])('$name', async ({ answer, call }) => {
    // Prepare
    const clients = clientsAnswering(answer);
    // Act
    const err = await call(clients).then(
      () => undefined,
      (e: unknown) => e,
    );
    const { outcome, schedule } = scheduleAfter(err);
    // Assess
    expect(outcome).toMatchObject({ kind: 'fail', terminal: true });
    expect(schedule.armAtMs).toBeUndefined();
  });
});

describe('Pump answers read for what they say', () => {
  it.each([
    { name: 'a close of a node already closing is done', text: pumpError("this pump's state is closing, apply close failed!") },
    { name: 'a close of a node already offline is done', text: pumpError("this pump's state is offline, apply close failed!") },
    { name: 'a close that started is done', text: json({ message: 'apply action close success!', code: 200, data: null }) },
  ])('$name', async ({ text }) => {
    // Prepare
    const clients = clientsAnswering({ status: 200, text });
    // Act / Assess
    await expect(clients.pump.offline('basic-pump-0:8250')).resolves.toBeUndefined();
  });

  it('a registry Pump could not read is "not read" in the view, never "no nodes" (the scale-in rule then waits)', async () => {
    // Prepare
    const clients = clientsAnswering({ status: 200, text: json({ status: null, CommitTS: 0, ErrMsg: 'get TSO failed: no leader' }) });
    // Act
    const view = await readPump(clients.pump, [{ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'basic-pump-0' } }]);
    // Assess
    expect(view.nodes).toBeUndefined();
    expect(view.detail).toContain('get TSO failed: no leader');
  });

  it('a registry without nodes is no nodes, not an error', async () => {
    // Prepare
    const clients = clientsAnswering({ status: 200, text: json({ status: {}, CommitTS: 1, ErrMsg: '' }) });
    // Act / Assess
    await expect(clients.pump.getNodes('basic-pump-0')).resolves.toEqual([]);
  });
});
