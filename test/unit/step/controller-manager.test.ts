import { describe, expect, it } from '@jest/globals';

import { parseObjectKey, formatObjectKey } from '../../../lib/model/object-key.js';
import { parseReconcileMessage } from '../../../lib/queue/message.js';
import { clusterPk } from '../../../lib/state/keys.js';
import { complete, retry } from '../../../lib/reconcile/engine/outcome.js';
import type { Controller } from '../../../lib/step/controller.js';
import { runStep } from '../../../lib/step/run-step.js';
import { KEY } from '../../support/fixtures.js';
import { MemoryStateStore } from '../../support/memory-state.js';
import { ENGINE_RULES, TEST_STEP_CONFIG, stepHarness } from '../../support/step-fakes.js';

const BACKUP_KEY = 'Backup:eks-test/demo/b1';

describe('object keys: the TidbCluster key unchanged, every other kind prefixed', () => {
  it.each([
    { name: 'a key without a prefix is a TidbCluster', key: 'eks-prod/demo/basic', kind: 'TidbCluster' },
    { name: 'a Backup key carries its kind', key: 'Backup:eks-prod/demo/b1', kind: 'Backup' },
    { name: 'a Restore key carries its kind', key: 'Restore:eks-prod/demo/r1', kind: 'Restore' },
    { name: 'a CompactBackup key carries its kind', key: 'CompactBackup:eks-prod/demo/c1', kind: 'CompactBackup' },
  ])('$name', ({ key, kind }) => {
    const parsed = parseObjectKey(key);
    expect(parsed).toMatchObject({ ok: true, kind });
    expect(parsed.ok && formatObjectKey(parsed.kind, parsed.ref)).toBe(key);
  });

  it.each([
    { name: 'an unknown kind is refused naming the kind', key: 'Pod:eks-prod/demo/p', field: 'kind' },
    { name: 'a TidbCluster key is never prefixed', key: 'TidbCluster:eks-prod/demo/basic', field: 'kind' },
    { name: 'a bad name behind a good kind is refused naming the name', key: 'Backup:eks-prod/demo/B_1', field: 'name' },
  ])('$name', ({ key, field }) => {
    expect(parseObjectKey(key)).toMatchObject({ ok: false, field });
  });

  it.each([
    { name: 'a TidbCluster keeps its partition key', key: 'eks-prod/demo/basic', pk: 'tc#eks-prod#demo#basic' },
    { name: 'a Backup of the same name has its own item', key: 'Backup:eks-prod/demo/basic', pk: 'backup#eks-prod#demo#basic' },
  ])('$name', ({ key, pk }) => {
    expect(clusterPk(key)).toBe(pk);
  });

  it('a state key naming no controller kind is refused', () => {
    expect(() => clusterPk('Pod:eks-prod/demo/basic')).toThrow(/not a controller kind/);
  });
});

describe('queue messages carry the kind', () => {
  it.each([
    { name: 'a message without a kind is a TidbCluster', key: 'eks-prod/demo/basic', kind: 'TidbCluster' },
    { name: 'a Backup message names its kind', key: 'Backup:eks-prod/demo/b1', kind: 'Backup' },
  ])('$name', ({ key, kind }) => {
    const parsed = parseReconcileMessage(JSON.stringify({ key, reason: 'watch' }), { k8sCluster: 'eks-prod' });
    expect(parsed).toMatchObject({ ok: true, message: { key, kind, ref: { k8sCluster: 'eks-prod', namespace: 'demo' } } });
  });

  it.each([
    { name: 'an unknown kind is refused as key.kind', key: 'Job:eks-prod/demo/x', field: 'key.kind' },
    { name: 'a foreign cluster behind a kind is still refused', key: 'Backup:other/demo/b1', field: 'key.k8sCluster' },
    { name: 'an unwatched namespace behind a kind is still refused', key: 'Backup:eks-prod/elsewhere/b1', field: 'key.namespace' },
  ])('$name', ({ key, field }) => {
    const parsed = parseReconcileMessage(JSON.stringify({ key }), { k8sCluster: 'eks-prod', watchNamespaces: ['demo'] });
    expect(parsed).toMatchObject({ ok: false, error: { field } });
  });
});

/** A controller that records what it saw and plans one Event, then asks to come back. */
function recordingController(): Controller<{ name: string }> & { seen: string[] } {
  const seen: string[] = [];
  return {
    kind: 'Backup',
    seen,
    async observe(ctx) {
      seen.push(`${ctx.ref.namespace}/${ctx.ref.name}@${ctx.fence}`);
      return { ok: true, snapshot: { name: ctx.ref.name } };
    },
    decide: (s) => ({
      actions: [{ kind: 'event', type: 'Normal', reason: 'Seen', message: s.name, object: { kind: 'Backup', namespace: 'demo', name: s.name } }],
      status: undefined,
      outcome: retry(30_000, 'polling'),
      ruleResults: [{ rule: 'Seen', outcome: complete() }],
    }),
    subject: () => ({ cluster: undefined, gone: false }),
  };
}

describe('one step engine runs every controller', () => {
  it('a Backup key is claimed, observed, decided, acted on and committed through the same ports', async () => {
    // Prepare
    const h = stepHarness(new MemoryStateStore());
    const backup = recordingController();
    const ports = { ...h.ports, controllers: { Backup: backup } };
    // Act
    const result = await runStep({ key: BACKUP_KEY, trigger: { reason: 'watch' }, owner: 'o1', ports, config: TEST_STEP_CONFIG, budgetMs: 60_000 });
    // Assess
    expect(result).toMatchObject({ disposition: 'stepped', fence: 1, release: 'released', outcome: { kind: 'retry', afterMs: 30_000 } });
    expect(backup.seen).toEqual(['demo/b1@1']);
    expect(h.executor.executed).toEqual([expect.objectContaining({ kind: 'event', reason: 'Seen', message: 'b1' })]);
    expect(await h.ports.state.get(BACKUP_KEY)).toMatchObject({ fence: 1, lease: undefined, nextWakeAtMs: expect.any(Number) });
    // The TidbCluster of the same namespace keeps its own lease and fence.
    expect(await h.ports.state.get(KEY)).toBeUndefined();
  });

  it('a key of a kind this deployment runs no controller for is rejected without a claim', async () => {
    const h = stepHarness(new MemoryStateStore());
    const result = await runStep({ key: 'Restore:eks-test/demo/r1', trigger: { reason: 'watch' }, owner: 'o1', ports: h.ports, config: TEST_STEP_CONFIG, budgetMs: 60_000 });
    expect(result).toMatchObject({ disposition: 'rejected', errors: ['no Restore controller runs in this deployment'] });
    expect(await h.ports.state.get('Restore:eks-test/demo/r1')).toBeUndefined();
  });

  it('a TidbCluster key still runs the TidbCluster recipe', async () => {
    const h = stepHarness(new MemoryStateStore());
    const result = await runStep({ key: KEY, trigger: { reason: 'watch' }, owner: 'o1', ports: { ...h.ports, controllers: { Backup: recordingController() } }, config: TEST_STEP_CONFIG, budgetMs: 60_000, rules: ENGINE_RULES });
    expect(result.rules.map((r) => r.rule)).toEqual(['Paused', 'ClusterStatus']);
  });
});
