/**
 * The world's side of backups, in one object: the simulated S3, the clusters' notional datasets,
 * the log-backup tasks and the backup-manager runtime that the kubelet asks for Job pods. Built
 * before the world (the kubelet takes its runtimes at construction) and attached to the world's
 * store and TiDB clusters afterwards; until then it declines every container.
 */
import type { Clock } from '../../platform/clock.js';
import type { KubeObject } from '../object.js';
import type { ProxyRegistry } from '../proxy.js';
import type { ContainerRuntime, ProcessHooks, SimProcess } from '../runtime.js';
import type { ObjectStore } from '../store.js';
import type { BrClusterView } from './cluster.js';
import { Datasets } from './dataset.js';
import { LogTasks } from './log-tasks.js';
import { BackupManagerRuntime } from './manager.js';
import { BACKUP_INVARIANT_NAMES, BackupMonitors } from './monitors.js';
import { type PodIdentityAssociation, PodIdentityAssociations } from './pod-identity.js';
import { type BucketSpec, SimS3 } from './s3.js';

/** What attaching needs: the store and clock, and the TiDB clusters BR talks to. */
export type BackupWorldDeps = { readonly store: ObjectStore; readonly clock: Clock; readonly proxy?: ProxyRegistry; clusterState(namespace: string, name: string): BrClusterView | undefined };

/** The S3, datasets, log tasks and backup-manager of one world. */
export class BackupSimulation implements ContainerRuntime {
  private attached: { s3: SimS3; datasets: Datasets; tasks: LogTasks; runtime: BackupManagerRuntime; monitors: BackupMonitors } | undefined;
  private readonly pendingBuckets: BucketSpec[] = [];
  private readonly podIdentity = new PodIdentityAssociations();

  /** Declares a bucket (before or after attaching). */
  addBucket(spec: BucketSpec): void {
    if (this.attached) this.attached.s3.addBucket(spec);
    else this.pendingBuckets.push(spec);
  }

  /** Creates an EKS Pod Identity association (before or after attaching); a second one for the same service account is refused. */
  addPodIdentityAssociation(a: PodIdentityAssociation): void {
    this.podIdentity.add(a);
  }

  /** Connects to the world. */
  attach(deps: BackupWorldDeps): void {
    if (this.attached) throw new Error('the backup simulation is already attached to a world');
    const s3 = new SimS3(deps.clock, this.pendingBuckets);
    const datasets = new Datasets(deps.clock);
    const ctx = { store: deps.store, clock: deps.clock, s3, datasets, podIdentity: this.podIdentity, ...(deps.proxy ? { proxy: deps.proxy } : {}), clusterState: (ns: string, name: string) => deps.clusterState(ns, name) };
    const tasks = new LogTasks(
      deps.clock,
      s3,
      datasets,
      (ns, name) => deps.clusterState(ns, name)?.pd.hasLeader() === true,
      (ns, name) => deps.clusterState(ns, name)?.pd.etcd,
    );
    const monitors = new BackupMonitors({ store: deps.store, s3, datasets, clock: deps.clock });
    this.attached = { s3, datasets, tasks, runtime: new BackupManagerRuntime(ctx, tasks), monitors };
  }

  /** The simulated S3. */
  get s3(): SimS3 {
    return this.must().s3;
  }

  /** The clusters' datasets. */
  get datasets(): Datasets {
    return this.must().datasets;
  }

  /** The log-backup tasks. */
  get logTasks(): LogTasks {
    return this.must().tasks;
  }

  /** The backup-manager runtime (its processes, for diagnostics). */
  get manager(): BackupManagerRuntime {
    return this.must().runtime;
  }

  start(pod: KubeObject, hooks: ProcessHooks): SimProcess | undefined {
    return this.attached?.runtime.start(pod, hooks);
  }

  /** The backup monitors' findings (monitors.ts); each empty before attaching. */
  invariants(): { name: string; violations: { atMs: number; message: string }[] }[] {
    return this.attached?.monitors.report() ?? BACKUP_INVARIANT_NAMES.map((name) => ({ name, violations: [] }));
  }

  /** Stops the log tasks' timers and the monitors. */
  stop(): void {
    this.attached?.tasks.close();
    this.attached?.monitors.stop();
  }

  private must(): NonNullable<BackupSimulation['attached']> {
    if (!this.attached) throw new Error('the backup simulation is not attached to a world yet');
    return this.attached;
  }
}
