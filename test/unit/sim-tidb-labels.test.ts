import { describe, expect, it } from '@jest/globals';

import { answerLabels, configuredLabels, decodeLabels, type HeldLabels } from '../../lib/sim/tidb/server-labels.js';

const request = (method: string, body: string) => ({ method, path: '/labels', query: new URLSearchParams(), body, headers: {} });

describe("the simulated TiDB's /labels, as TiDB's LabelHandler", () => {
  it.each<{ name: string; body: string; expected: ReturnType<typeof decodeLabels> }>([
    { name: 'an object of strings is taken', body: '{"zone":"z1","host":"n1"}', expected: { labels: { zone: 'z1', host: 'n1' } } },
    { name: 'an empty body is io.EOF', body: '', expected: { error: 'EOF' } },
    { name: 'null leaves the map empty', body: 'null', expected: { labels: {} } },
    { name: 'a number value is refused with Go\'s message', body: '{"zone":1}', expected: { error: 'json: cannot unmarshal number into Go value of type string' } },
    { name: 'a list is refused with Go\'s message', body: '["zone"]', expected: { error: 'json: cannot unmarshal array into Go value of type map[string]string' } },
    { name: 'a string is refused with Go\'s message', body: '"zone"', expected: { error: 'json: cannot unmarshal string into Go value of type map[string]string' } },
    { name: 'text that is no JSON is refused', body: 'zone=z1', expected: { error: 'invalid character in JSON body' } },
  ])('$name', ({ body, expected }) => {
    // Act / Assess
    expect(decodeLabels(body)).toEqual(expected);
  });

  it('a post merges over the labels held (keys not sent are kept) and answers them all; {} only reads; GET is refused', () => {
    // Prepare
    const held: HeldLabels = { instance: 'uid/0', labels: { dc: 'west' } };
    const accepted: Record<string, string>[] = [];
    const refused: string[] = [];
    const report = { accepted: (l: Record<string, string>) => accepted.push(l), refused: (e: string) => refused.push(e) };

    // Act
    const posted = answerLabels(request('POST', '{"zone":"z1"}'), held, report);
    const read = answerLabels(request('POST', '{}'), held, report);
    const get = answerLabels(request('GET', ''), held, report);
    const bad = answerLabels(request('POST', '{"zone":true}'), held, report);

    // Assess
    expect([posted.status, JSON.parse(posted.body)]).toEqual([200, { dc: 'west', zone: 'z1' }]);
    expect([read.status, JSON.parse(read.body)]).toEqual([200, { dc: 'west', zone: 'z1' }]);
    expect([get.status, get.body]).toEqual([400, 'This api only support POST method']);
    expect([bad.status, bad.body]).toEqual([400, 'json: cannot unmarshal bool into Go value of type string']);
    expect(held.labels).toEqual({ dc: 'west', zone: 'z1' });
    expect(accepted).toEqual([{ zone: 'z1' }]);
    expect(refused).toEqual(['json: cannot unmarshal bool into Go value of type string']);
  });

  it("a process starts from tidb.toml's [labels] table (string values only)", () => {
    // Act / Assess
    expect(configuredLabels({ labels: { zone: 'z0', weight: 3 } })).toEqual({ zone: 'z0' });
    expect(configuredLabels({})).toEqual({});
  });
});
