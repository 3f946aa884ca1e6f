/**
 * A `Runtime` on in-memory ends for the handlers' unit tests: the memory state store, the memory
 * queue and scheduler on a virtual clock, memory logger and metrics, and scripted clients (a
 * Kubernetes port serving a list of TidbClusters, PD that is down). Everything is injected through
 * the handlers' `runtime` option, exactly as in Lambda.
 */

import type { Context } from 'aws-lambda';

import type { AccessReview, EventInput, KubeObject, KubePort, ObjectList, PageRequest, TidbClusterPage } from '../../../lib/kube/port.js';
import type { PumpPort, TicdcPort, TidbStatusPort, TiflashStatusPort, TikvStatusPort, TiproxyPort } from '../../../lib/components/port.js';
import type { PdPort } from '../../../lib/pd/port.js';
import { VirtualClock } from '../../../lib/platform/clock.js';
import { DEFAULT_SWEEP_CONFIG, DEFAULT_STEP_CONFIG } from '../../../lib/platform/config.js';
import { NotFoundError, TransientError } from '../../../lib/platform/errors.js';
import { MemoryLogger } from '../../../lib/platform/logger.js';
import { MemoryMetrics } from '../../../lib/platform/metrics.js';
import { MemoryReconcileQueue } from '../../../lib/queue/memory.js';
import type { OutgoingMessage } from '../../../lib/queue/port.js';
import { MemoryScheduler } from '../../../lib/timer/memory-scheduler.js';
import { QueueSchedulerTimers } from '../../../lib/timer/timers.js';
import type { ClusterClients, DeadlineClients } from '../../../lib/wiring/clients.js';
import { ObservedIndex } from '../../../lib/wiring/observed.js';
import { ClusterIdCache } from '../../../lib/wiring/pd-view.js';
import type { Runtime } from '../../../lib/wiring/ports.js';
import { MemoryStateStore } from '../../support/memory-state.js';

/** A valid TidbCluster named `name` in `demo` (v8.5.0: PD 3, TiKV 3, TiDB 1). */
export function tidbCluster(name: string, extra: { paused?: boolean; ready?: boolean } = {}): KubeObject {
  const conditions = extra.ready ? [{ type: 'Ready', status: 'True' }] : [];
  return {
    apiVersion: 'pingcap.com/v1alpha1',
    kind: 'TidbCluster',
    metadata: { name, namespace: 'demo', uid: `uid-${name}`, resourceVersion: '1' },
    spec: {
      version: 'v8.5.0',
      pd: { baseImage: 'pingcap/pd', replicas: 3 },
      tikv: { baseImage: 'pingcap/tikv', replicas: 3 },
      tidb: { baseImage: 'pingcap/tidb', replicas: 1 },
      ...(extra.paused ? { paused: true } : {}),
    },
    status: { conditions },
  };
}

/** A Kubernetes port holding `clusters`; LISTs of TidbClusters come in pages of the asked size. */
export class FakeKube implements KubePort {
  readonly pages: PageRequest[] = [];
  constructor(public clusters: KubeObject[] = []) {}

  async listOwned(): Promise<ObjectList> {
    return { items: [], resourceVersion: '1' };
  }

  async getTidbCluster(namespace: string, name: string): Promise<KubeObject> {
    const found = this.clusters.find((c) => c.metadata.namespace === namespace && c.metadata.name === name);
    if (!found) throw new NotFoundError(`tidbclusters "${name}" not found`);
    return found;
  }

  async listPersistentVolumes(): Promise<ObjectList> {
    return { items: [], resourceVersion: '1' };
  }

  async getPersistentVolume(name: string): Promise<KubeObject> {
    throw new NotFoundError(`persistentvolumes "${name}" not found`);
  }

  async getNode(name: string): Promise<KubeObject> {
    throw new NotFoundError(`nodes "${name}" not found`);
  }

  async getStorageClass(name: string): Promise<KubeObject> {
    throw new NotFoundError(`storageclasses.storage.k8s.io "${name}" not found`);
  }

  async listDeployments(_namespace?: string, _selector?: unknown): Promise<ObjectList> {
    return { items: [], resourceVersion: '1' };
  }

  async getLease(_namespace?: string, _name?: string): Promise<KubeObject | undefined> {
    return undefined;
  }

  async listTidbClusters(page: PageRequest): Promise<TidbClusterPage> {
    this.pages.push(page);
    const start = Number(page.continue ?? '0');
    const items = this.clusters.slice(start, start + page.limit);
    const next = start + page.limit < this.clusters.length ? String(start + page.limit) : undefined;
    return { items, resourceVersion: '1', ...(next === undefined ? {} : { continue: next }) };
  }

  create = async (obj: KubeObject) => obj;
  update = async (obj: KubeObject) => obj;
  updateStatus = async (obj: KubeObject) => obj;
  patch = async (): Promise<KubeObject> => {
    throw new TransientError('patch is not expected here');
  };
  delete = async () => undefined;
  /** The Events recorded, in order. */
  readonly events: EventInput[] = [];
  createEvent = async (event: EventInput) => (this.events.push(event), { name: `e${this.events.length}`, created: true });
  hasSecret = async () => true;
  /** The SubjectAccessReviews asked, in order; `allow` decides them (default: nothing is allowed). */
  readonly reviews: AccessReview[] = [];
  allow: (review: AccessReview) => boolean = () => false;
  reviewAccess = async (review: AccessReview) => {
    this.reviews.push(review);
    const allowed = this.allow(review);
    return { allowed, denied: false, reason: allowed ? 'RBAC: allowed by the fake' : '' };
  };
}

const pdDown = (): PdPort =>
  new Proxy({} as PdPort, {
    get: () => async () => {
      throw new TransientError('PD get members: HTTP 503: no endpoints available');
    },
  });

const tikvDown = (): TikvStatusPort => ({
  getMetrics: async () => Promise.reject(new TransientError('TiKV metrics: HTTP 503: no endpoints available')),
  getLeaderCount: async () => Promise.reject(new TransientError('TiKV metrics: HTTP 503: no endpoints available')),
});


const tidbDown = (): TidbStatusPort =>
  new Proxy({} as TidbStatusPort, {
    get: () => async () => {
      throw new TransientError('TiDB status: HTTP 503: no endpoints available');
    },
  });

const unreachable = <T extends object>(what: string): T =>
  new Proxy({} as T, {
    get: () => async () => {
      throw new TransientError(`${what}: HTTP 503: no endpoints available`);
    },
  });

const tiflashDown = (): TiflashStatusPort => ({
  getStoreStatus: async () => {
    throw new TransientError('TiFlash store status: HTTP 503: no endpoints available');
  },
});

/** Clients whose PD, TiKV, TiFlash, TiDB, TiCDC and Pump are unreachable. */
export function fakeClients(kube: KubePort): DeadlineClients {
  const clients: ClusterClients = { kube, pd: pdDown, tikv: tikvDown, tiflash: tiflashDown, tidb: tidbDown, ticdc: () => unreachable<TicdcPort>('TiCDC status'), pump: () => unreachable<PumpPort>('Pump status'), tiproxy: () => unreachable<TiproxyPort>('TiProxy health') };
  return { ...clients, withDeadline: () => clients };
}

/** The runtime and the fakes behind it, for assertions. */
export type FakeRuntime = {
  runtime: Runtime;
  clock: VirtualClock;
  kube: FakeKube;
  state: MemoryStateStore;
  queue: MemoryReconcileQueue;
  sent: OutgoingMessage[][];
  logger: MemoryLogger;
  metrics: MemoryMetrics;
};

/** A runtime on in-memory ends (see the module comment). */
export function fakeRuntime(clusters: KubeObject[] = []): FakeRuntime {
  const clock = new VirtualClock();
  const kube = new FakeKube(clusters);
  const state = new MemoryStateStore();
  const queue = new MemoryReconcileQueue({ clock });
  const sent: OutgoingMessage[][] = [];
  const recordingQueue = {
    send: async (messages: readonly OutgoingMessage[]) => (sent.push([...messages]), queue.send(messages)),
    changeVisibility: (handle: string, seconds: number) => queue.changeVisibility(handle, seconds),
  };
  const logger = new MemoryLogger();
  const metrics = new MemoryMetrics();
  const timers = new QueueSchedulerTimers({ queue, scheduler: new MemoryScheduler({ clock, queue }), queueArn: 'arn:q', schedulerRoleArn: 'arn:r' });
  const config = { step: DEFAULT_STEP_CONFIG, sweep: DEFAULT_SWEEP_CONFIG, deployment: {} };
  const runtime: Runtime = { k8sCluster: 'eks-test', config, clock, logger, metrics, state, queue: recordingQueue, timers, clients: fakeClients(kube), index: new ObservedIndex(), clusterIds: new ClusterIdCache() };
  return { runtime, clock, kube, state, queue, sent, logger, metrics };
}

/** A Lambda context with `remainingMs` left. */
export function lambdaContext(requestId = 'req-1', remainingMs = 30_000): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: 'tidb-reconciler-dev',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:tidb-reconciler-dev',
    memoryLimitInMB: '512',
    awsRequestId: requestId,
    logGroupName: '/aws/lambda/tidb-reconciler-dev',
    logStreamName: requestId,
    getRemainingTimeInMillis: () => remainingMs,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
