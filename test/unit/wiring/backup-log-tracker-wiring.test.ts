/**
 * The log-backup tracker through the step engine: a started log Backup's step reads its task's keys
 * from PD's etcd (exactly these three, through the cluster's PD) and writes the checkpoint; the step
 * woken by the echo of that write reads nothing (its wake-up is still to come); a failed read is
 * one Event and no write.
 */
import { describe, expect, it } from '@jest/globals';

import type { KnownKind, KubeObject, LabelSelector, ObjectReader } from '../../../lib/kube/port.js';
import type { EtcdEntry, PdEtcdPort } from '../../../lib/pd/etcd.js';
import { TransientError } from '../../../lib/platform/errors.js';
import { runStep } from '../../../lib/step/run-step.js';
import type { ClusterClients, ClusterTarget } from '../../../lib/wiring/clients.js';
import { backupControllers } from '../../../lib/wiring/controllers.js';
import { MemoryStateStore } from '../../support/memory-state.js';
import { TEST_STEP_CONFIG, stepHarness } from '../../support/step-fakes.js';
import { backup, readyTc } from '../reconcile/backup/fixtures.js';

class Objects implements ObjectReader {
  constructor(private readonly objects: KubeObject[]) {}
  async getObject(kind: KnownKind, namespace: string, name: string): Promise<KubeObject | undefined> {
    return this.objects.find((o) => o.kind === kind && o.metadata.namespace === namespace && o.metadata.name === name);
  }
  async listObjects(_kind: KnownKind, _namespace: string, _selector: LabelSelector): Promise<KubeObject[]> {
    return [];
  }
  async secretKeys(): Promise<string[] | undefined> {
    return undefined;
  }
}

/** PD's etcd holding a running task `b1` checkpointed at TSO 463267823616000000. */
class Etcd implements PdEtcdPort {
  readonly reads: string[] = [];
  constructor(private readonly fail = false) {}
  async get(key: string, prefix: boolean): Promise<EtcdEntry[]> {
    this.reads.push(`${key}${prefix ? '*' : ''}`);
    if (this.fail) throw new TransientError('PD etcd range timed out after 5000 ms');
    const checkpoint = Buffer.alloc(8);
    checkpoint.writeBigUInt64BE(463267823616000000n);
    if (key === '/tidb/br-stream/checkpoint/b1/') return [{ key: `${key}central_global`, value: checkpoint }];
    if (key === '/tidb/br-stream/info/b1') return [{ key, value: Buffer.from('{}') }];
    return [];
  }
}

const running = backup(
  { backupMode: 'log', logSubcommand: 'log-start' },
  { status: { phase: 'Running', commitTs: '443123456789', backupPath: 's3://backups/b1', conditions: [{ type: 'Running', status: 'True' }] }, metadata: { finalizers: ['tidb.pingcap.com/backup-protection'] } },
);

function wired(etcd: Etcd) {
  const h = stepHarness(new MemoryStateStore());
  const targets: ClusterTarget[] = [];
  const clients = { pdEtcd: (t: ClusterTarget) => (targets.push(t), etcd) } as unknown as ClusterClients;
  const ports = { ...h.ports, controllers: backupControllers(new Objects([running as KubeObject, readyTc() as unknown as KubeObject]), clients) };
  const step = () => runStep({ key: 'Backup:eks-test/demo/b1', trigger: { reason: 'watch' }, owner: 'o', ports, config: TEST_STEP_CONFIG, budgetMs: 60_000 });
  return { h, step, targets };
}

describe('the log-backup tracker wired to the step engine', () => {
  it('reads the three keys through the cluster PD, writes logCheckpointTs, and an echo step right after reads nothing', async () => {
    // Prepare
    const etcd = new Etcd();
    const { h, step, targets } = wired(etcd);
    // Act
    await step();
    const afterFirst = [...etcd.reads];
    await step();
    // Assess
    expect(afterFirst.sort()).toEqual(['/tidb/br-stream/checkpoint/b1/*', '/tidb/br-stream/info/b1', '/tidb/br-stream/pause/b1']);
    expect(targets).toEqual([{ namespace: 'demo', tcName: 'basic', tls: false }]);
    const update = h.executor.executed.find((a) => a.kind === 'update');
    expect(update?.kind === 'update' ? update.object.status : undefined).toMatchObject({ logCheckpointTs: '463267823616000000' });
    expect(etcd.reads).toEqual(afterFirst);
  });

  it('a failed read is one Warning Event and no write', async () => {
    const { h, step } = wired(new Etcd(true));
    const result = await step();
    expect(h.executor.executed).toEqual([expect.objectContaining({ kind: 'event', reason: 'LogBackupTrackFailed' })]);
    expect(result).toMatchObject({ disposition: 'stepped', outcome: { kind: 'wait' } });
  });
});
