import { describe, expect, it } from '@jest/globals';

import { parseScenario } from '../../lib/local/scenario/file.js';
import { scaledCount, unmetRequestBounds, type RequestExpectation } from '../../lib/local/scenario/expect.js';
import { RequestCounter } from '../../lib/local/request-counts.js';

const HEAD = `name: t
cluster:
  metadata: {name: basic, namespace: demo}
  spec:
    pd: {replicas: 3}
timeline:
  - waitFor: ready
  - advance: 1h
`;

function parse(expectSection: string) {
  return parseScenario(`${HEAD}expect:\n${expectSection}`, 's.yaml');
}

describe('expect.requests is read as documented', () => {
  it('reads since and each bound with its target and scale', () => {
    // Act
    const result = parse('  requests:\n    since: 1\n    apiServerPerClusterHour: {max: 20}\n    exporterPerHour: {min: 1, max: 60}\n    sqs: {min: 0}\n');
    // Assess
    if (!result.ok) throw new Error(result.error);
    expect(result.scenario.expect).toEqual({
      requests: {
        since: 1,
        bounds: [
          { target: 'apiServer', scale: 'perClusterHour', max: 20 },
          { target: 'exporter', scale: 'perHour', min: 1, max: 60 },
          { target: 'sqs', scale: 'total', min: 0 },
        ],
      },
    });
  });

  it('reads until, the entry whose start ends the window', () => {
    const result = parse('  requests:\n    since: 0\n    until: 1\n    pd: {max: 1}\n');
    expect(result.ok && result.scenario.expect).toEqual({ requests: { since: 0, until: 1, bounds: [{ target: 'pd', scale: 'total', max: 1 }] } });
  });

  it('a file without expect has none', () => {
    const result = parseScenario(HEAD, 's.yaml');
    expect(result.ok && result.scenario.expect).toBeUndefined();
  });

  it.each([
    { name: 'an unknown section', text: '  request: {}\n', error: 's.yaml:10: expect.request: unknown field (expected one of: requests)' },
    { name: 'an unknown target', text: '  requests:\n    apiserver: {max: 1}\n', error: 's.yaml:11: expect.requests.apiserver: unknown field' },
    { name: 'a bound without min or max', text: '  requests:\n    pd: {}\n', error: 's.yaml:11: expect.requests.pd: expected min, max or both' },
    { name: 'min above max', text: '  requests:\n    pd: {min: 5, max: 4}\n', error: 's.yaml:11: expect.requests.pd.min: min 5 is above max 4' },
    { name: 'a negative max', text: '  requests:\n    pd: {max: -1}\n', error: 's.yaml:11: expect.requests.pd.max:' },
    { name: 'since past the timeline', text: '  requests:\n    since: 2\n    pd: {max: 1}\n', error: 's.yaml:11: expect.requests.since:' },
    { name: 'no bound at all', text: '  requests:\n    since: 1\n', error: 's.yaml:10: expect.requests: expected at least one bound' },
    { name: 'until not after since', text: '  requests:\n    since: 1\n    until: 1\n    pd: {max: 1}\n', error: 's.yaml:12: expect.requests.until:' },
    { name: 'until past the timeline', text: '  requests:\n    until: 2\n    pd: {max: 1}\n', error: 's.yaml:11: expect.requests.until:' },
  ])('refuses $name, naming the field', ({ text, error }) => {
    const result = parse(text);
    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.error).toContain(error);
  });
});

describe('a window of counts is held to its bounds', () => {
  const counter = new RequestCounter();
  counter.count('apiServer', 552);
  counter.count('exporter', 420);
  const window = { counts: counter.snapshot(), virtualMs: 3_600_000, clusters: 2, since: 1 };

  it.each([
    { name: 'a total is the count', bound: { target: 'apiServer', scale: 'total' }, value: 552 },
    { name: 'per hour divides by the hours', bound: { target: 'exporter', scale: 'perHour' }, value: 420 },
    { name: 'per cluster-hour divides by hours × clusters', bound: { target: 'apiServer', scale: 'perClusterHour' }, value: 276 },
    { name: 'a target with no requests is 0', bound: { target: 'pd', scale: 'perClusterHour' }, value: 0 },
  ] as const)('$name', ({ bound, value }) => {
    expect(scaledCount(bound, window)).toBe(value);
  });

  it('an empty window is 0 without requests and unbounded with some', () => {
    const empty = { ...window, virtualMs: 0 };
    expect([scaledCount({ target: 'pd', scale: 'perHour' }, empty), scaledCount({ target: 'apiServer', scale: 'perHour' }, empty)]).toEqual([0, Number.POSITIVE_INFINITY]);
  });

  it.each<{ name: string; expectation: RequestExpectation; messages: string[] }>([
    { name: 'bounds that hold say nothing', expectation: { since: 1, bounds: [{ target: 'apiServer', scale: 'perClusterHour', min: 1, max: 300 }] }, messages: [] },
    {
      name: 'a max broken says the value, what it was counted over, and the bound',
      expectation: { since: 1, bounds: [{ target: 'apiServer', scale: 'perClusterHour', max: 20 }] },
      messages: ['apiServerPerClusterHour 276 (552 requests over 1.00 h × 2 cluster(s) since timeline[1]) is above max 20'],
    },
    {
      name: 'a min broken says so',
      expectation: { since: 1, bounds: [{ target: 'pd', scale: 'total', min: 1 }] },
      messages: ['pd 0 (0 requests over 1.00 h × 2 cluster(s) since timeline[1]) is below min 1'],
    },
  ])('$name', ({ expectation, messages }) => {
    expect(unmetRequestBounds(expectation, window)).toEqual(messages);
  });
  it('a window that ends at a later entry says so', () => {
    const expectation: RequestExpectation = { since: 1, until: 2, bounds: [{ target: 'exporter', scale: 'perHour', max: 60 }] };
    expect(unmetRequestBounds(expectation, { ...window, until: 2 })).toEqual(['exporterPerHour 420 (420 requests over 1.00 h × 2 cluster(s) since timeline[1] until timeline[2]) is above max 60']);
  });
});
