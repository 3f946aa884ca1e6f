/**
 * The simulate report's `actions` are complete: every Pod and PVC the world creates is there,
 * whoever created it — also what the simulated controllers do while a reconcile step runs
 * (a StatefulSet recreating a pod while a handler waits out an API error's backoff), which must be
 * the sim's, never dropped as if the reconciler's own write had already been recorded.
 */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseScenario } from '../../lib/local/scenario/file.js';
import { createProgress } from '../../lib/local/scenario/progress.js';
import { SimStack } from '../../lib/local/sim-stack.js';
import { runScenario } from '../../lib/local/simulate.js';

const DIR = join(import.meta.dirname, '..', 'scenarios');

describe('report completeness', () => {
  it.each([
    { name: 'a failover under API errors: every pod and claim the world creates is a create action', file: 'pd-failover-under-api-errors.yaml', seed: 1 },
    { name: 'a failover under API errors, another seed', file: 'pd-failover-under-api-errors.yaml', seed: 2 },
  ])(
    '$name',
    async ({ file, seed }) => {
      // Prepare: count what the store itself sees.
      const parsed = parseScenario(readFileSync(join(DIR, file), 'utf8'), file);
      if (!parsed.ok) throw new Error(parsed.error);
      const stack = await SimStack.start(parsed.scenario, seed);
      const seen: string[] = [];
      stack.world.store.subscribe((ev) => {
        if ((ev.kind === 'Pod' || ev.kind === 'PersistentVolumeClaim') && ev.type === 'ADDED') seen.push(`create ${ev.kind}/${ev.object.metadata.name ?? ''}`);
      });

      // Act
      let report;
      try {
        report = await runScenario(stack, createProgress({ quiet: true }));
      } finally {
        await stack.stop();
      }

      // Assess: each creation the store saw is one successful `create` action, whoever made it.
      const created = report.actions.filter((a) => a.verb === 'create' && (a.kind === 'Pod' || a.kind === 'PersistentVolumeClaim') && a.error === undefined).map((a) => `create ${a.kind ?? ''}/${a.name ?? ''}`);
      expect(report.passed).toBe(true);
      expect(created.sort()).toEqual(seen.sort());
    },
    300_000,
  );
});
