/**
 * A scenario's `patch:` step is written with Strict field validation, as `kubectl patch` sends it:
 * a field the TidbCluster CRD does not have fails the step naming it, instead of being pruned
 * silently; a valid patch after it still applies.
 */
import { describe, expect, it } from '@jest/globals';

import { parseScenario } from '../../lib/local/scenario/file.js';
import { createProgress } from '../../lib/local/scenario/progress.js';
import { SimStack } from '../../lib/local/sim-stack.js';
import { runScenario } from '../../lib/local/simulate.js';

const story = (patch: string) => `name: strict-patch
cluster:
  metadata: {name: basic, namespace: demo}
  spec:
    version: v8.5.0
    pd: {baseImage: pingcap/pd, replicas: 3, requests: {storage: 1Gi}}
timeline:
  - patch: ${patch}
`;

async function run(patch: string) {
  const parsed = parseScenario(story(patch), 'strict-patch.yaml');
  if (!parsed.ok) throw new Error(parsed.error);
  const stack = await SimStack.start(parsed.scenario, 1);
  try {
    const report = await runScenario(stack, createProgress({ quiet: true }));
    return { report, tc: stack.world.store.get('TidbCluster', 'demo', 'basic') };
  } finally {
    await stack.stop();
  }
}

describe('patch steps use Strict field validation', () => {
  it('a misspelt field fails the step naming it, and the cluster is unchanged', async () => {
    const { report, tc } = await run('{spec: {pd: {replica: 5}}}');
    expect(report.timeline[0]).toMatchObject({ ok: false, error: 'patch TidbCluster demo/basic: strict decoding error: unknown field "spec.pd.replica"' });
    expect(tc?.spec?.pd).toEqual({ baseImage: 'pingcap/pd', replicas: 3, requests: { storage: '1Gi' } });
  }, 60000);

  it('a patch the schema accepts applies', async () => {
    const { report, tc } = await run('{spec: {pd: {replicas: 5}}}');
    expect(report.timeline[0]).toMatchObject({ ok: true });
    expect(tc?.spec?.pd?.replicas).toBe(5);
  }, 60000);
});
