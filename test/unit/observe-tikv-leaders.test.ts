/**
 * The leader-count read of an upgrade: only TiKV pods being evicted (annotated
 * `evictLeaderBeginTime`, not being deleted) are asked, and a failed read is a fact, not a throw.
 */
import { describe, expect, it } from '@jest/globals';
import type { IPod } from 'kubernetes-models/v1/Pod';

import type { TikvStatusPort } from '../../lib/components/port.js';
import { EVICT_LEADER_BEGIN_TIME_ANNOTATION, LABEL } from '../../lib/model/labels.js';
import { TransientError } from '../../lib/platform/errors.js';
import { NO_OWNED_OBJECTS } from '../../lib/step/ports.js';
import { readTikvLeaders } from '../../lib/wiring/observe-tikv-leaders.js';

type PodRow = { name: string; component?: string; evicting?: boolean; deleting?: boolean };

const pod = ({ name, component = 'tikv', evicting = false, deleting = false }: PodRow): IPod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name,
    labels: { [LABEL.component]: component },
    ...(evicting ? { annotations: { [EVICT_LEADER_BEGIN_TIME_ANNOTATION]: '2026-01-01T00:00:00Z' } } : {}),
    ...(deleting ? { deletionTimestamp: '2026-01-01T00:01:00Z' } : {}),
  },
});

/** A status port answering `counts[pod]`, failing for pods it has no count of; it records who was asked. */
function fakeTikv(counts: Record<string, number>): TikvStatusPort & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    getMetrics: async () => '',
    getLeaderCount: async (podName) => {
      asked.push(podName);
      const count = counts[podName];
      if (count === undefined) throw new TransientError(`TiKV metrics of ${podName}: HTTP 503`);
      return count;
    },
  };
}

describe('readTikvLeaders', () => {
  it.each([
    { name: 'nothing is read when no TiKV pod is being evicted', pods: [{ name: 'basic-tikv-0' }, { name: 'basic-tikv-1' }], expected: undefined, asked: [] },
    {
      name: 'only the pod being evicted is asked',
      pods: [{ name: 'basic-tikv-0' }, { name: 'basic-tikv-1', evicting: true }, { name: 'basic-tikv-2' }],
      expected: { 'basic-tikv-1': { leaderCount: 7 } },
      asked: ['basic-tikv-1'],
    },
    {
      name: 'a pod being deleted or of another component is not asked',
      pods: [{ name: 'basic-tikv-2', evicting: true, deleting: true }, { name: 'basic-tiflash-0', component: 'tiflash', evicting: true }],
      expected: undefined,
      asked: [],
    },
    {
      name: 'a failed read is the pod\'s error',
      pods: [{ name: 'basic-tikv-9', evicting: true }],
      expected: { 'basic-tikv-9': { error: expect.stringContaining('HTTP 503') } },
      asked: ['basic-tikv-9'],
    },
  ])('$name', async ({ pods, expected, asked }) => {
    // Prepare
    const tikv = fakeTikv({ 'basic-tikv-0': 30, 'basic-tikv-1': 7, 'basic-tikv-2': 0 });
    const owned = { ...NO_OWNED_OBJECTS, Pod: pods.map(pod) };
    // Act
    const read = await readTikvLeaders(tikv, owned, new AbortController().signal);
    // Assess
    expect(read).toEqual(expected);
    expect(tikv.asked).toEqual(asked);
  });
});
