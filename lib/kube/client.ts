/**
 * The Kubernetes adapter: `KubePort` over @kubernetes/client-node 2.0.1's KubeConfig and HTTP
 * stack (see `http.ts`). It speaks REST directly rather than through the generated typed clients:
 * those turn answers into model classes (timestamps become `Date`s, unknown fields are dropped) and
 * need one method per kind, while the engine wants the server's JSON unchanged and one code path
 * for eleven kinds. Writes always carry a precondition; each call is bounded by a timeout and, with
 * `withDeadline`, by the invocation's remaining time.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { type Clock, RealClock } from '../platform/clock.js';
import { TerminalError } from '../platform/errors.js';
import { kubeError, isAlreadyExists } from './errors.js';
import { buildEvent, eventName } from './events.js';
import { type CallBudget, type HttpRequest, KubeHttp, callTimeoutMs } from './http.js';
import { type KindInfo, apiVersionOf, collectionPath, encodeSelector, kindInfo, objectPath } from './kinds.js';
import type {
  DeleteOptions,
  EventInput,
  EventRecord,
  KnownKind,
  KubeObject,
  KubePort,
  LabelSelector,
  ObjectList,
  OwnedKind,
  PageRequest,
  TidbClusterPage,
} from './port.js';

/** The default per-call timeout: well under a Lambda's time, long enough for a large LIST. */
export const DEFAULT_KUBE_TIMEOUT_MS = 10_000;

/** Options of `KubeClient`. The clock only measures the remaining time against `deadlineAtMs`. */
export type KubeClientOptions = { timeoutMs?: number; deadlineAtMs?: number; clock?: Clock };

/** `KubePort` against one API server. */
export class KubeClient implements KubePort {
  private readonly budget: CallBudget;
  private readonly clock: Clock;

  constructor(
    private readonly http: KubeHttp,
    options: KubeClientOptions = {},
  ) {
    this.budget = { timeoutMs: options.timeoutMs ?? DEFAULT_KUBE_TIMEOUT_MS, deadlineAtMs: options.deadlineAtMs };
    this.clock = options.clock ?? new RealClock();
  }

  /** A client for the KubeConfig's current context. */
  static fromKubeConfig(kubeConfig: KubeConfig, options: KubeClientOptions = {}): KubeClient {
    return new KubeClient(new KubeHttp(kubeConfig), options);
  }

  /** The same client with every call also ending by `deadlineAtMs` (on this client's clock). */
  withDeadline(deadlineAtMs: number): KubeClient {
    return new KubeClient(this.http, { timeoutMs: this.budget.timeoutMs, deadlineAtMs, clock: this.clock });
  }

  async listOwned(namespace: string, kind: OwnedKind, labelSelector: LabelSelector): Promise<ObjectList> {
    const info = kindInfo(kind);
    const query = new URLSearchParams({ labelSelector: encodeSelector(labelSelector) });
    const list = await this.json<RawList>(`list ${kind} in ${namespace}`, { method: 'GET', path: `${collectionPath(info, namespace)}?${query}` });
    return { items: itemsOf(list, info), resourceVersion: list.metadata?.resourceVersion ?? '' };
  }

  async getTidbCluster(namespace: string, name: string): Promise<KubeObject> {
    const info = kindInfo('TidbCluster');
    return this.json<KubeObject>(`get TidbCluster ${namespace}/${name}`, { method: 'GET', path: objectPath(info, namespace, name) });
  }

  async listPersistentVolumes(labelSelector: LabelSelector): Promise<ObjectList> {
    const info = kindInfo('PersistentVolume');
    const query = new URLSearchParams({ labelSelector: encodeSelector(labelSelector) });
    const list = await this.json<RawList>('list PersistentVolumes', { method: 'GET', path: `${collectionPath(info, undefined)}?${query}` });
    return { items: itemsOf(list, info), resourceVersion: list.metadata?.resourceVersion ?? '' };
  }

  async getPersistentVolume(name: string): Promise<KubeObject> {
    const info = kindInfo('PersistentVolume');
    return this.json<KubeObject>(`get PersistentVolume ${name}`, { method: 'GET', path: objectPath(info, '', name) });
  }

  async listTidbClusters(page: PageRequest): Promise<TidbClusterPage> {
    const info = kindInfo('TidbCluster');
    const query = new URLSearchParams({ limit: String(page.limit) });
    if (page.continue) query.set('continue', page.continue);
    const list = await this.json<RawList>('list TidbClusters', { method: 'GET', path: `${collectionPath(info, page.namespace)}?${query}` });
    const next = list.metadata?.continue;
    return { items: itemsOf(list, info), resourceVersion: list.metadata?.resourceVersion ?? '', ...(next ? { continue: next } : {}) };
  }

  async create(obj: KubeObject): Promise<KubeObject> {
    const info = kindInfo(obj.kind);
    const namespace = requireNamespace(obj);
    const body = { ...obj, apiVersion: apiVersionOf(info), kind: info.kind };
    return this.json<KubeObject>(`create ${describe(obj)}`, { method: 'POST', path: collectionPath(info, namespace), body: JSON.stringify(body) });
  }

  async update(obj: KubeObject): Promise<KubeObject> {
    return this.replace(obj, undefined);
  }

  async updateStatus(obj: KubeObject): Promise<KubeObject> {
    if (obj.kind !== 'TidbCluster') throw new TerminalError(`updateStatus is for TidbClusters, not ${String(obj.kind)}`, { field: 'kind' });
    return this.replace(obj, 'status');
  }

  async patch(kind: KnownKind, namespace: string, name: string, patch: Record<string, unknown>, precondition: { resourceVersion: string }): Promise<KubeObject> {
    const what = `patch ${kind} ${namespace}/${name}`;
    if (!precondition.resourceVersion) throw new TerminalError(`${what} refused: a patch must carry a resourceVersion precondition`, { field: 'metadata.resourceVersion' });
    const meta = typeof patch.metadata === 'object' && patch.metadata !== null ? patch.metadata : {};
    const body = { ...patch, metadata: { ...meta, resourceVersion: precondition.resourceVersion } };
    const path = objectPath(kindInfo(kind), namespace, name);
    return this.json<KubeObject>(what, { method: 'PATCH', path, body: JSON.stringify(body), contentType: 'application/merge-patch+json' });
  }

  async delete(kind: KnownKind, namespace: string, name: string, options: DeleteOptions): Promise<void> {
    const preconditions = { ...(options.uid ? { uid: options.uid } : {}), ...(options.resourceVersion ? { resourceVersion: options.resourceVersion } : {}) };
    const body = {
      apiVersion: 'v1',
      kind: 'DeleteOptions',
      ...(Object.keys(preconditions).length > 0 ? { preconditions } : {}),
      ...(options.propagationPolicy ? { propagationPolicy: options.propagationPolicy } : {}),
      ...(options.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: options.gracePeriodSeconds } : {}),
    };
    await this.call(`delete ${kind} ${namespace}/${name}`, { method: 'DELETE', path: objectPath(kindInfo(kind), namespace, name), body: JSON.stringify(body) });
  }

  async createEvent(event: EventInput): Promise<EventRecord> {
    const name = eventName(event);
    try {
      await this.create(buildEvent(event, this.clock.nowMs()));
      return { name, created: true };
    } catch (err) {
      // The name is derived from the occurrence: it exists, so this occurrence is already recorded.
      if (isAlreadyExists(err)) return { name, created: false };
      throw err;
    }
  }

  private async replace(obj: KubeObject, subresource: 'status' | undefined): Promise<KubeObject> {
    const info = kindInfo(obj.kind);
    const what = `${subresource ? 'update status of' : 'update'} ${describe(obj)}`;
    if (!obj.metadata.resourceVersion) {
      throw new TerminalError(`${what} refused: an update must carry the observed metadata.resourceVersion`, { field: 'metadata.resourceVersion' });
    }
    const path = objectPath(info, requireNamespace(obj), requireName(obj), subresource);
    return this.json<KubeObject>(what, { method: 'PUT', path, body: JSON.stringify({ ...obj, apiVersion: apiVersionOf(info), kind: info.kind }) });
  }

  private async json<T>(what: string, req: HttpRequest): Promise<T> {
    const text = await this.call(what, req);
    try {
      return JSON.parse(text) as T;
    } catch (err) {
      throw new TerminalError(`${what}: the API server answered with a body that is not JSON`, { cause: err });
    }
  }

  private async call(what: string, req: HttpRequest): Promise<string> {
    const timeoutMs = callTimeoutMs(this.budget, this.clock.nowMs(), what);
    const answer = await this.http.send(req, timeoutMs, what);
    if (answer.status >= 400) throw kubeError(what, answer.status, answer.text);
    return answer.text;
  }
}

type RawList = { items?: KubeObject[]; metadata?: { resourceVersion?: string; continue?: string } };

/** List items come without apiVersion/kind from the real server; set them so they can be written back. */
function itemsOf(list: RawList, info: KindInfo): KubeObject[] {
  return (list.items ?? []).map((item) => ({ ...item, apiVersion: apiVersionOf(info), kind: info.kind }));
}

function requireNamespace(obj: KubeObject): string {
  const ns = obj.metadata.namespace;
  if (!ns) throw new TerminalError(`${describe(obj)} has no metadata.namespace`, { field: 'metadata.namespace' });
  return ns;
}

function requireName(obj: KubeObject): string {
  const name = obj.metadata.name;
  if (!name) throw new TerminalError(`${describe(obj)} has no metadata.name`, { field: 'metadata.name' });
  return name;
}

function describe(obj: KubeObject): string {
  return `${String(obj.kind)} ${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? obj.metadata.generateName ?? ''}`;
}
