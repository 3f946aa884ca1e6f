import { describe, expect, it } from '@jest/globals';

import type { IPod } from 'kubernetes-models/v1/Pod';

import { ComponentStatusError } from '../../../lib/components/caller.js';
import type { PumpNode, PumpPort, TicdcCapture, TicdcPort } from '../../../lib/components/port.js';
import { NotFoundError, TransientError } from '../../../lib/platform/errors.js';
import { readPump, readTicdc } from '../../../lib/wiring/ticdc-view.js';

const BEGIN = 'tidb.pingcap.com/ticdc-graceful-shutdown-begin-time';
const pod = (name: string, draining = false): IPod => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, ...(draining ? { annotations: { [BEGIN]: '2026-01-01T00:00:00Z' } } : {}) } });
const capture = (pod: string, isOwner: boolean): TicdcCapture => ({ id: `cap-${pod.slice(-1)}`, isOwner, address: `${pod}:8301`, version: 'v8.5.0' });

/** A TiCDC whose pods answer as `captures` say (absent: no answer) and whose drain answers `drain`. */
function ticdc(captures: Record<string, TicdcCapture>, drain: () => number, asked: string[] = []): TicdcPort {
  const status = (podName: string) => {
    const c = captures[podName];
    if (!c) throw new TransientError(`TiCDC status of ${podName}: HTTP 503: no endpoints available`);
    return c;
  };
  return {
    getStatus: async (podName) => status(podName),
    getCaptures: async () => Object.values(captures),
    resignOwner: async () => undefined,
    drainCapture: async (podName, id) => {
      asked.push(`${podName} ${id}`);
      return drain();
    },
    isHealthy: async () => true,
  };
}

describe('the TiCDC read (as TiDB Operator syncTiCDCStatus and DrainCapture)', () => {
  it('reads every pod; one that does not answer is a capture not ready', async () => {
    const view = await readTicdc(ticdc({ 'basic-ticdc-0': capture('basic-ticdc-0', true) }, () => 0), [pod('basic-ticdc-0'), pod('basic-ticdc-1')]);
    expect(view.captures['basic-ticdc-0']).toEqual({ podName: 'basic-ticdc-0', ready: true, id: 'cap-0', version: 'v8.5.0', isOwner: true });
    expect(view.captures['basic-ticdc-1']).toMatchObject({ podName: 'basic-ticdc-1', ready: false });
    expect(view.drains).toEqual({});
  });

  const statusError = (status: number) => (status === 404 ? new NotFoundError('drain: HTTP 404', { cause: new ComponentStatusError(404, '') }) : new TransientError(`drain: HTTP ${status}`, { cause: new ComponentStatusError(status, '') }));
  it.each([
    { name: 'tables left: the count', owner: false, others: true, drain: () => 4, expected: { kind: 'tables', count: 4 }, asked: ['basic-ticdc-1 cap-1'] },
    { name: 'the owner is not drained (it resigns first)', owner: true, others: true, drain: () => 4, expected: { kind: 'retry' }, asked: [] },
    { name: 'the only capture: nothing to move tables to', owner: false, others: false, drain: () => 4, expected: { kind: 'alone' }, asked: [] },
    { name: 'the only capture, the owner: nothing to move the ownership to either', owner: true, others: false, drain: () => 4, expected: { kind: 'alone' }, asked: [] },
    { name: 'no drain API (404): 0', owner: false, others: true, drain: () => { throw statusError(404); }, expected: { kind: 'tables', count: 0 }, asked: ['basic-ticdc-1 cap-1'] },
    { name: '503: ask again', owner: false, others: true, drain: () => { throw statusError(503); }, expected: { kind: 'retry' }, asked: ['basic-ticdc-1 cap-1'] },
  ])('a pod being drained: $name', async ({ owner, others, drain, expected, asked }) => {
    // Prepare
    const calls: string[] = [];
    const captures = { ...(others ? { 'basic-ticdc-0': capture('basic-ticdc-0', !owner) } : {}), 'basic-ticdc-1': capture('basic-ticdc-1', owner) };
    // Act
    const view = await readTicdc(ticdc(captures, drain, calls), [...(others ? [pod('basic-ticdc-0')] : []), pod('basic-ticdc-1', true)]);
    // Assess
    expect(view.drains['basic-ticdc-1']).toMatchObject(expected);
    expect(view.drains['basic-ticdc-0']).toBeUndefined(); // only pods the reconciler began draining
    expect(calls).toEqual(asked);
  });

  it('a TiCDC that cannot list its captures (404) is taken as alone, as TiDB Operator reads it', async () => {
    // Prepare
    const calls: string[] = [];
    const base = ticdc({ 'basic-ticdc-0': capture('basic-ticdc-0', true), 'basic-ticdc-1': capture('basic-ticdc-1', false) }, () => 4, calls);
    const noList: TicdcPort = { ...base, getCaptures: async () => Promise.reject(statusError(404)) };
    // Act
    const view = await readTicdc(noList, [pod('basic-ticdc-0'), pod('basic-ticdc-1', true)]);
    // Assess
    expect(view.drains['basic-ticdc-1']).toEqual({ kind: 'alone' });
    expect(calls).toEqual([]);
  });
});

describe('the Pump read', () => {
  const nodes: PumpNode[] = [{ nodeId: 'basic-pump-0:8250', host: 'basic-pump-0.basic-pump:8250', state: 'online' }];
  const pump = (answering: readonly string[]): PumpPort => ({
    getNodes: async (podName) => {
      if (!answering.includes(podName)) throw new TransientError(`Pump status via ${podName}: HTTP 503: connection refused`);
      return nodes;
    },
    offline: async () => undefined,
  });

  it.each([
    { name: 'the first pod that answers gives the registry', answering: ['basic-pump-1'], expected: { nodes } },
    { name: 'no pod answers: not read, and why', answering: [], expected: { nodes: undefined, detail: expect.stringContaining('no Pump pod answered /status') } },
  ])('$name', async ({ answering, expected }) => {
    const view = await readPump(pump(answering), [pod('basic-pump-0'), pod('basic-pump-1')]);
    expect(view).toEqual(expected);
  });
});
