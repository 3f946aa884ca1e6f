/**
 * What the PD microservice stories show in their recorded actions (test/scenarios/pdms-*.yaml), as
 * TiDB Operator v1.6's PDMS upgrader behaves: each service's pods roll highest ordinal first, and the
 * service's primary is transferred away before the pod holding it restarts.
 */
import { describe, expect, it } from '@jest/globals';

import type { ActionRecord, ScenarioReport } from '../../lib/local/scenario/report.js';
import { runStory } from '../support/story.js';
import { itChecksOwnedStoriesPass } from '../support/story-owners.js';

const podDeletes = (r: ScenarioReport, prefix: string): ActionRecord[] => r.actions.filter((a) => a.verb === 'delete' && a.kind === 'Pod' && (a.name ?? '').startsWith(prefix));
const transfers = (r: ScenarioReport, service: string): ActionRecord[] =>
  r.actions.filter((a) => a.actor === 'reconciler' && a.verb === 'pd.transferPrimary' && (a.args as { service?: string } | undefined)?.service === service);

describe('a PD microservices rolling upgrade', () => {
  it.each([
    { name: 'tso rolls 2, 1, 0 and moves its primary off the pod before it restarts', service: 'tso', order: ['basic-tso-2', 'basic-tso-1', 'basic-tso-0'] },
    { name: 'scheduling rolls 1, 0 and moves its primary off the pod before it restarts', service: 'scheduling', order: ['basic-scheduling-1', 'basic-scheduling-0'] },
  ])(
    '$name',
    async ({ service, order }) => {
      // Act
      const report = await runStory('pdms-rolling-upgrade.yaml');
      // Assess
      expect(report.passed).toBe(true);
      const deletes = podDeletes(report, `basic-${service}-`);
      expect(deletes.map((a) => a.name)).toEqual(order);
      const moved = transfers(report, service);
      expect(moved.length).toBeGreaterThanOrEqual(1);
      for (const transfer of moved) {
        const to = (transfer.args as { to: string }).to;
        // The pod that rolls right after the transfer is not the one that takes the primary.
        const next = deletes.find((d) => d.atMs >= transfer.atMs);
        expect(next).toBeDefined();
        expect(next?.name).not.toBe(to);
        expect(transfer.error).toBeUndefined();
      }
    },
    300_000,
  );
});

itChecksOwnedStoriesPass('pdms-stories');
