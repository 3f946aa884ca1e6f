/**
 * What TiDB, TiCDC and Pump answer when PD or TiKV is in trouble, as the real servers do (each case
 * cites the source it follows). These are the answers the reconciler's clients classify.
 */
import { describe, expect, it } from '@jest/globals';
import { type World, worldPerTest } from './tidb-harness.js';

const { begin } = worldPerTest();

/** Every PD process hangs: no leader until `pdBack`. */
function pdDown(w: World): void {
  for (const i of [0, 1, 2]) w.sim.faults.podDown('demo', `basic-pd-${i}`);
}
function pdBack(w: World): void {
  for (const i of [0, 1, 2]) w.sim.faults.podUp('demo', `basic-pd-${i}`);
}

const tidbContainer = async (w: World): Promise<any> => (await w.object('Pod', 'basic-tidb-0')).json.status.containerStatuses.find((c: any) => c.name === 'tidb');

describe('TiDB under PD trouble', () => {
  it('a serving TiDB answers /status 200 while PD has no leader: handleStatus (pkg/server/http_status.go) reads only its own health flag', async () => {
    // Prepare
    const w = await begin({ tidb: 1 }, ['tikv', 'tidb']);
    await w.waitFor('TiDB /status', async () => (await w.podProxy('basic-tidb-0', 10080, '/status')).status === 200);
    // Act
    pdDown(w);
    await w.clock.advance(60_000);
    const during = await w.podProxy('basic-tidb-0', 10080, '/status');
    const ready = (await w.object('Pod', 'basic-tidb-0')).json.status.conditions.find((c: any) => c.type === 'Ready').status;
    // Assess
    expect(during.status).toBe(200);
    expect(ready).toBe('True');
  });

  it('a TiDB started while PD has no leader exits (cmd/tidb-server/main.go: terror.MustNil on the store) and the kubelet restarts it with back-off; it serves once PD is back', async () => {
    // Prepare
    const w = await begin({ tidb: 1 }, ['tikv', 'tidb']);
    await w.waitFor('TiDB /status', async () => (await w.podProxy('basic-tidb-0', 10080, '/status')).status === 200);
    pdDown(w);
    // Act: the TiDB process is started afresh while PD has no leader
    w.sim.faults.podDown('demo', 'basic-tidb-0');
    await w.clock.advance(1_000);
    w.sim.faults.podUp('demo', 'basic-tidb-0');
    await w.waitFor('TiDB exited', async () => (await tidbContainer(w))?.lastState?.terminated?.exitCode === 1, 5 * 60_000);
    const crashed = await tidbContainer(w);
    const refused = await w.podProxy('basic-tidb-0', 10080, '/status');
    pdBack(w);
    await w.waitFor('TiDB serving again', async () => (await w.podProxy('basic-tidb-0', 10080, '/status')).status === 200, 10 * 60_000);
    // Assess
    expect([crashed.lastState.terminated.exitCode, crashed.restartCount > 0]).toEqual([1, true]);
    expect(refused.status).not.toBe(200);
    expect((await tidbContainer(w)).restartCount).toBeGreaterThan(0);
  });

  it('/upgrade/start answers 400 with the storage error while PD has no leader (handler.WriteError, pkg/server/handler/util.go), 200 once PD is back', async () => {
    // Prepare
    const w = await begin({ tidb: 1 }, ['tikv', 'tidb']);
    await w.waitFor('TiDB /status', async () => (await w.podProxy('basic-tidb-0', 10080, '/status')).status === 200);
    // Act
    pdDown(w);
    await w.clock.advance(5_000);
    const refused = await w.podProxy('basic-tidb-0', 10080, '/upgrade/start', 'POST');
    pdBack(w);
    await w.waitFor('PD back', async () => (await w.pd('/pd/api/v1/leader')).status === 200);
    const started = await w.podProxy('basic-tidb-0', 10080, '/upgrade/start', 'POST');
    const again = await w.podProxy('basic-tidb-0', 10080, '/upgrade/start', 'POST');
    // Assess
    expect([refused.status, refused.text]).toEqual([400, '[tikv:9001]PD server timeout']);
    expect([started.status, started.json]).toEqual([200, 'success!']);
    expect([again.status, again.json]).toEqual([200, "It's a duplicated operation and the cluster is already in upgrading state."]);
  });
});

describe('TiCDC before its capture is ready', () => {
  it('answers /status 500 (cdc/api/status: capture.Info fails) and /api/v1 503 ErrServerIsNotReady (CheckServerReadyMiddleware) until PD lets it register', async () => {
    // Prepare
    const w = await begin({ tidb: 0, ticdc: 1 }, ['tikv', 'ticdc']);
    await w.waitFor('one capture', async () => (await w.podProxy('basic-ticdc-0', 8301, '/api/v1/captures')).json?.length === 1);
    pdDown(w);
    // Act: the TiCDC process starts afresh while PD has no leader
    w.sim.faults.podDown('demo', 'basic-ticdc-0');
    await w.clock.advance(1_000);
    w.sim.faults.podUp('demo', 'basic-ticdc-0');
    await w.clock.advance(3_000);
    const status = await w.podProxy('basic-ticdc-0', 8301, '/status');
    const captures = await w.podProxy('basic-ticdc-0', 8301, '/api/v1/captures');
    pdBack(w);
    await w.waitFor('capture registered', async () => (await w.podProxy('basic-ticdc-0', 8301, '/status')).status === 200);
    // Assess
    expect(status.status).toBe(500);
    expect([captures.status, captures.json?.error_code]).toEqual([503, 'CDC:ErrServerIsNotReady']);
  });
});

describe('Pump under PD trouble', () => {
  it('answers /status 200 with no status and the error (pump/server.go PumpStatus), and every close refusal 200 with an error code (ApplyAction)', async () => {
    // Prepare
    const w = await begin({ tidb: 0, pump: 1 }, ['tikv', 'pump']);
    await w.waitFor('one pump', async () => Object.keys((await w.podProxy('basic-pump-0', 8250, '/status')).json?.status ?? {}).length === 1);
    // Act
    const unknown = await w.podProxy('basic-pump-0', 8250, '/state/basic-pump-9:8250/close', 'PUT');
    const close = await w.podProxy('basic-pump-0', 8250, '/state/basic-pump-0:8250/close', 'PUT');
    const again = await w.podProxy('basic-pump-0', 8250, '/state/basic-pump-0:8250/close', 'PUT');
    pdDown(w);
    await w.clock.advance(1_000);
    const status = await w.podProxy('basic-pump-0', 8250, '/status');
    // Assess
    expect([unknown.status, Number(unknown.json.code)]).toEqual([200, 3]);
    expect([close.status, Number(close.json.code)]).toEqual([200, 200]);
    expect([again.status, Number(again.json.code), again.json.message]).toEqual([200, 3, "this pump's state is closing, apply close failed!"]);
    expect([status.status, status.json.status, typeof status.json.ErrMsg]).toEqual([200, null, 'string']);
    expect(status.json.ErrMsg).not.toBe('');
  });
});
