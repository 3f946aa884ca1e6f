/**
 * Every simulated controller of the world on one store and clock: the nodes, the kubelet (with the
 * scheduler and the fault hooks), and the StatefulSet, Deployment, Job, Endpoints and volume
 * controllers, the local volume static provisioner, and volume expansion (the EBS CSI
 * external-resizer over the simulated EBS — sizes and VolumeAttributesClasses — and the kubelet's
 * online file system resize). The garbage collector is separate (gc.ts) so a world can run without it.
 */
import { Kubelet } from '../kubelet.js';
import { type NodesSpec, createNodes } from '../nodes.js';
import type { ContainerRuntime } from '../runtime.js';
import type { ObjectStore } from '../store.js';
import type { ErrorSink } from './base.js';
import { DeploymentController } from './deployment.js';
import { EndpointsController } from './endpoints.js';
import { JobController } from './job.js';
import { StatefulSetController } from './statefulset.js';
import { type StorageClassSim, createStorageClasses } from '../storage-classes.js';
import { VolumeController } from './volumes.js';
import { VolumeResizeController } from './volume-resize.js';
import { VolumeModifyController } from './volume-modify.js';
import { EbsVolumes } from '../ebs-volumes.js';
import { LocalVolumeProvisioner, localClassDisks } from './local-volumes.js';

/** Options of the simulated controllers; each has a documented default. */
export type SimControllersOptions = {
  /** From volumes ready to containers started (default 5000 ms). */
  podStartupMs?: number;
  /** Nodes to create on start: a count (node-0..node-N-1) or node pools (default 3). */
  nodes?: NodesSpec;
  /** Processes behind container images (default: none; every container is ready at once). */
  runtimes?: ContainerRuntime[];
  /**
   * StorageClasses to create besides (or instead of) EKS's gp2 (default) and gp3, both Delete and
   * WaitForFirstConsumer; a class with `localVolumes` gets its static local volumes on start.
   */
  storageClasses?: Record<string, StorageClassSim>;
  /** Where unexpected controller failures go (default: rethrown from the clock's timer). */
  onError?: ErrorSink;
};

/** Starts and stops the simulated controllers together. */
export class SimControllers {
  readonly kubelet: Kubelet;
  readonly statefulSets: StatefulSetController;
  readonly deployments: DeploymentController;
  readonly endpoints: EndpointsController;
  readonly jobs: JobController;
  readonly volumes: VolumeController;
  /** The EBS volumes' modifications (six hours apart at least). */
  readonly ebs: EbsVolumes;
  /** Expansion of claims whose request grew. */
  readonly volumeResize: VolumeResizeController;
  /** Changes of a claim's VolumeAttributesClass (EBS type, IOPS, throughput). */
  readonly volumeModify: VolumeModifyController;
  /** The local volume static provisioner of the classes with `localVolumes`. */
  readonly localVolumes: LocalVolumeProvisioner;
  private readonly nodeCount: NodesSpec;
  private readonly storageClasses: Record<string, StorageClassSim>;

  constructor(
    private readonly store: ObjectStore,
    opts: SimControllersOptions = {},
  ) {
    this.nodeCount = opts.nodes ?? 3;
    this.kubelet = new Kubelet(store, { podStartupMs: opts.podStartupMs, runtimes: opts.runtimes, onError: opts.onError });
    this.statefulSets = new StatefulSetController(store, opts.onError);
    this.deployments = new DeploymentController(store, opts.onError);
    this.endpoints = new EndpointsController(store, opts.onError);
    this.jobs = new JobController(store, opts.onError);
    this.volumes = new VolumeController(store, { onError: opts.onError });
    this.ebs = new EbsVolumes(store.clock);
    this.volumeResize = new VolumeResizeController(store, this.ebs, { onError: opts.onError });
    this.volumeModify = new VolumeModifyController(store, this.ebs, { onError: opts.onError });
    this.storageClasses = opts.storageClasses ?? {};
    this.localVolumes = new LocalVolumeProvisioner(store, localClassDisks(this.storageClasses, this.nodeCount), opts.onError);
  }

  /** Creates the missing nodes and storage classes and starts every controller. */
  start(): void {
    createNodes(this.store, this.nodeCount);
    createStorageClasses(this.store, this.storageClasses);
    this.volumes.start();
    this.volumeResize.start();
    this.volumeModify.start();
    this.localVolumes.start();
    this.statefulSets.start();
    this.deployments.start();
    this.endpoints.start();
    this.jobs.start();
    this.kubelet.start();
  }

  /** Stops every controller (and every simulated process). */
  stop(): void {
    this.kubelet.stop();
    this.jobs.stop();
    this.endpoints.stop();
    this.deployments.stop();
    this.statefulSets.stop();
    this.volumes.stop();
    this.volumeResize.stop();
    this.volumeModify.stop();
    this.localVolumes.stop();
  }
}
