import { describe, expect, it } from '@jest/globals';

import type { KnownKind, KubeObject, LabelSelector, ObjectReader } from '../../../lib/kube/port.js';
import { runStep } from '../../../lib/step/run-step.js';
import { backupControllers } from '../../../lib/wiring/controllers.js';
import type { ClusterClients } from '../../../lib/wiring/clients.js';
import { MemoryStateStore } from '../../support/memory-state.js';
import { TEST_STEP_CONFIG, stepHarness } from '../../support/step-fakes.js';
import { backup, readyTc, restore } from '../reconcile/backup/fixtures.js';

/** An in-memory ObjectReader that records every read. */
class FakeObjects implements ObjectReader {
  readonly reads: string[] = [];
  constructor(private readonly objects: KubeObject[], private readonly secrets: Record<string, Record<string, string>> = {}) {}
  async getObject(kind: KnownKind, namespace: string, name: string): Promise<KubeObject | undefined> {
    this.reads.push(`get ${kind} ${namespace}/${name}`);
    return this.objects.find((o) => o.kind === kind && o.metadata.namespace === namespace && o.metadata.name === name);
  }
  async listObjects(kind: KnownKind, namespace: string, selector: LabelSelector): Promise<KubeObject[]> {
    this.reads.push(`list ${kind} ${namespace} ${JSON.stringify(selector)}`);
    return [];
  }
  async secretKeys(namespace: string, name: string): Promise<string[] | undefined> {
    this.reads.push(`secretKeys ${namespace}/${name}`);
    const data = this.secrets[`${namespace}/${name}`];
    return data === undefined ? undefined : Object.keys(data);
  }
}

const NO_CLIENTS = {} as ClusterClients;

describe('the Backup and Restore controllers wired to the step engine', () => {
  it('a Backup key reads the Backup, its TidbCluster, its Jobs and its Secret key names, then creates the Job and writes the Backup once', async () => {
    // Prepare
    const h = stepHarness(new MemoryStateStore());
    const b = backup({ s3: { bucket: 'backups', prefix: 'b1', secretName: 's3' } });
    const objects = new FakeObjects([b as KubeObject, readyTc() as unknown as KubeObject], { 'demo/s3': { access_key: 'AKIAEXAMPLE', secret_key: 'very-secret' } });
    const ports = { ...h.ports, controllers: backupControllers(objects, NO_CLIENTS) };
    // Act
    const result = await runStep({ key: 'Backup:eks-test/demo/b1', trigger: { reason: 'watch' }, owner: 'o', ports, config: TEST_STEP_CONFIG, budgetMs: 60_000 });
    // Assess
    expect(objects.reads).toEqual(['get Backup demo/b1', 'get TidbCluster demo/basic', 'list Job demo {"tidb.pingcap.com/backup":"b1"}', 'secretKeys demo/s3']);
    expect(h.executor.executed.map((a) => ('ref' in a ? `${a.kind} ${a.ref.kind}/${a.ref.name}` : a.kind))).toEqual(['create Job/backup-b1', 'update Backup/b1', 'event']);
    expect(result).toMatchObject({ disposition: 'stepped', outcome: { kind: 'wait' } });
    // No secret value reaches an action, the step's log or its history.
    expect(JSON.stringify(h.executor.executed)).not.toContain('very-secret');
    expect(JSON.stringify(h.logger)).not.toContain('very-secret');
  });

  it('a Backup that is gone forgets its key', async () => {
    const h = stepHarness(new MemoryStateStore());
    const ports = { ...h.ports, controllers: backupControllers(new FakeObjects([]), NO_CLIENTS) };
    const result = await runStep({ key: 'Backup:eks-test/demo/b1', trigger: { reason: 'watch' }, owner: 'o', ports, config: TEST_STEP_CONFIG, budgetMs: 60_000 });
    expect(result).toMatchObject({ disposition: 'stepped', outcome: { kind: 'complete', message: 'Backup not found' } });
    expect((await h.ports.state.get('Backup:eks-test/demo/b1'))?.expiresAtSeconds).toEqual(expect.any(Number));
  });

  it('a Restore without a TiDB schema client cannot tell whether the target holds data, and asks again later', async () => {
    const h = stepHarness(new MemoryStateStore());
    const ports = { ...h.ports, controllers: backupControllers(new FakeObjects([restore() as KubeObject, readyTc() as unknown as KubeObject]), NO_CLIENTS) };
    const result = await runStep({ key: 'Restore:eks-test/demo/r1', trigger: { reason: 'watch' }, owner: 'o', ports, config: TEST_STEP_CONFIG, budgetMs: 60_000 });
    expect(result).toMatchObject({ outcome: { kind: 'retry', message: 'cannot tell whether the target cluster holds data: no TiDB schema client' } });
    expect(h.executor.executed).toEqual([]);
  });

  it('a Restore into a cluster whose TiDB lists user tables is refused', async () => {
    const h = stepHarness(new MemoryStateStore());
    const clients = { tidbSchema: () => ({ userTables: async () => ['shop.orders'] }) } as unknown as ClusterClients;
    const ports = { ...h.ports, controllers: backupControllers(new FakeObjects([restore() as KubeObject, readyTc() as unknown as KubeObject]), clients) };
    await runStep({ key: 'Restore:eks-test/demo/r1', trigger: { reason: 'watch' }, owner: 'o', ports, config: TEST_STEP_CONFIG, budgetMs: 60_000 });
    expect(h.executor.executed).toEqual([expect.objectContaining({ kind: 'update' }), expect.objectContaining({ kind: 'event', reason: 'TargetClusterNotEmpty' })]);
  });
});
