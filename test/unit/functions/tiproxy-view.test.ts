import { describe, expect, it } from '@jest/globals';

import type { TiproxyHealth, TiproxyPort } from '../../../lib/components/port.js';
import { TransientError } from '../../../lib/platform/errors.js';
import { readTiproxy } from '../../../lib/wiring/tiproxy-view.js';
import { testPod } from '../../support/fixtures.js';

/** A TiProxy port answering each pod as `answers` says (an Error is thrown, as an unreachable pod). */
function port(answers: Record<string, TiproxyHealth | Error>): TiproxyPort & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    health: async (podName) => {
      asked.push(podName);
      const answer = answers[podName];
      if (answer === undefined || answer instanceof Error) throw answer ?? new Error(`no answer for ${podName}`);
      return answer;
    },
    setLabels: async () => undefined,
  };
}

const pod = (name: string, deleting = false) => testPod(name, { component: 'tiproxy', deleting });

describe('reading TiProxy health into the snapshot', () => {
  it.each([
    { name: '200: healthy, with the answer as info', answer: { healthy: true as const, info: '{"config_checksum":7}' }, want: { healthy: true, info: '{"config_checksum":7}' } },
    { name: '502 not ready: not healthy, saying why', answer: { healthy: false as const, detail: 'HTTP 502: server is not ready' }, want: { healthy: false, detail: 'HTTP 502: server is not ready' } },
    { name: 'no answer: not healthy, the error kept', answer: new TransientError('TiProxy health of basic-tiproxy-0 failed: connection refused'), want: { healthy: false, detail: expect.stringContaining('connection refused') } },
  ])('$name', async ({ answer, want }) => {
    // Act
    const view = await readTiproxy(port({ 'basic-tiproxy-0': answer }), [pod('basic-tiproxy-0')]);
    // Assess
    expect(view.members['basic-tiproxy-0']).toEqual({ podName: 'basic-tiproxy-0', ...want });
  });

  it('a terminating pod is not asked', async () => {
    const tiproxy = port({ 'basic-tiproxy-0': { healthy: true, info: '{}' } });
    const view = await readTiproxy(tiproxy, [pod('basic-tiproxy-0'), pod('basic-tiproxy-1', true)]);
    expect(tiproxy.asked).toEqual(['basic-tiproxy-0']);
    expect(Object.keys(view.members)).toEqual(['basic-tiproxy-0']);
  });
});
