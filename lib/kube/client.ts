/**
 * The Kubernetes adapter: `KubePort` over @kubernetes/client-node 2.0.1's KubeConfig and HTTP
 * stack (see `http.ts`). It speaks REST directly rather than through the generated typed clients:
 * those turn answers into model classes (timestamps become `Date`s, unknown fields are dropped) and
 * need one method per kind, while the engine wants the server's JSON unchanged and one code path
 * for eleven kinds. Writes always carry a precondition; each call is bounded by a timeout and, with
 * `withDeadline`, by the invocation's remaining time.
 *
 * Transient failures (429, 5xx, timeouts, reset connections; see `isRetryableKubeFailure`) are
 * retried inside the call with the jittered backoff of `platform/retry.ts`, never waiting past the
 * retry deadline: reads always; updates and patches because they carry the observed resourceVersion
 * (a repeat of one that did apply answers 409, and the next step re-observes); deletes only with a
 * uid or resourceVersion precondition (a repeat of one that did apply answers 404 or 409); creates
 * because a repeat of one that did apply answers AlreadyExists, which is taken as this create only
 * when the existing object has the same controller owner (see `create`).
 */
import type { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { type Clock, RealClock } from '../platform/clock.js';
import { ConflictError, NotFoundError, TerminalError } from '../platform/errors.js';
import { type RetryCall, type RetryContext, withRetries } from '../platform/retry.js';
import { KUBE_LIST_PAGE_LIMIT } from './answer-size.js';
import { isAlreadyExists, isRetryableKubeFailure, kubeError, retryAfterMsOf } from './errors.js';
import { buildEvent, eventName, repeatPatch } from './events.js';
import { type CallBudget, type HttpRequest, KubeHttp, type RemoteClientOptions, callTimeoutMs, retryContextOf } from './http.js';
import { type KindInfo, STATUS_SUBRESOURCE_KINDS, apiVersionOf, collectionPath, encodeSelector, kindInfo, objectPath } from './kinds.js';
import { type RawList, listAllPages } from './pager.js';
import { copySecretWith } from './secret-copy.js';
import type {
  AccessDecision,
  AccessReview,
  DeleteOptions,
  EventInput,
  EventRecord,
  KnownKind,
  ObjectPager,
  KubeObject,
  KubePort,
  LabelSelector,
  ObjectList,
  ObjectReader,
  OwnedKind,
  PageRequest,
  SecretCopySpec,
  TidbClusterPage,
} from './port.js';

/** The default per-call timeout: well under a Lambda's time, long enough for a large LIST. */
export const DEFAULT_KUBE_TIMEOUT_MS = 10_000;

/**
 * Options of `KubeClient` (see `RemoteClientOptions`); `listPageLimit` is the objects per LIST page
 * (default `KUBE_LIST_PAGE_LIMIT`).
 */
export type KubeClientOptions = RemoteClientOptions & { listPageLimit?: number };

/** Repeats of an idempotent or precondition-guarded request on a transient failure. */
const SAFE: RetryCall = { isRetryable: isRetryableKubeFailure, retryAfterMs: retryAfterMsOf };
/** A request that must not be repeated (a delete without preconditions). */
const ONCE: RetryCall = { isRetryable: () => false };

/** `KubePort` against one API server. */
export class KubeClient implements KubePort, ObjectReader, ObjectPager {
  private readonly budget: CallBudget;
  private readonly clock: Clock;
  private readonly retry: RetryContext;
  private readonly pageLimit: number;

  constructor(
    private readonly http: KubeHttp,
    private readonly options: KubeClientOptions = {},
  ) {
    this.pageLimit = options.listPageLimit ?? KUBE_LIST_PAGE_LIMIT;
    this.budget = { timeoutMs: options.timeoutMs ?? DEFAULT_KUBE_TIMEOUT_MS, deadlineAtMs: options.deadlineAtMs };
    this.clock = options.clock ?? new RealClock();
    this.retry = retryContextOf(options, this.clock);
  }

  /** A client for the KubeConfig's current context. */
  static fromKubeConfig(kubeConfig: KubeConfig, options: KubeClientOptions = {}): KubeClient {
    return new KubeClient(new KubeHttp(kubeConfig), options);
  }

  /**
   * The same client with every call also ending by `deadlineAtMs` (on this client's clock) and no
   * retry wait ending after `retryUntilMs` (default `deadlineAtMs`; e.g. the end of a step's work).
   */
  withDeadline(deadlineAtMs: number, retryUntilMs?: number): KubeClient {
    const { retryUntilMs: _previous, ...rest } = this.options;
    return new KubeClient(this.http, { ...rest, clock: this.clock, deadlineAtMs, ...(retryUntilMs !== undefined ? { retryUntilMs } : {}) });
  }

  async listOwned(namespace: string, kind: OwnedKind, labelSelector: LabelSelector): Promise<ObjectList> {
    return this.listPaged(kindInfo(kind), namespace, labelSelector, `list ${kind} in ${namespace}`);
  }

  async getTidbCluster(namespace: string, name: string): Promise<KubeObject> {
    const info = kindInfo('TidbCluster');
    return this.json<KubeObject>(`get TidbCluster ${namespace}/${name}`, { method: 'GET', path: objectPath(info, namespace, name) });
  }

  async listPersistentVolumes(labelSelector: LabelSelector): Promise<ObjectList> {
    return this.listPaged(kindInfo('PersistentVolume'), undefined, labelSelector, 'list PersistentVolumes');
  }

  async getPersistentVolume(name: string): Promise<KubeObject> {
    const info = kindInfo('PersistentVolume');
    return this.json<KubeObject>(`get PersistentVolume ${name}`, { method: 'GET', path: objectPath(info, '', name) });
  }

  async getNode(name: string): Promise<KubeObject> {
    const info = kindInfo('Node');
    return this.json<KubeObject>(`get Node ${name}`, { method: 'GET', path: objectPath(info, '', name) });
  }

  async getStorageClass(name: string): Promise<KubeObject> {
    const info = kindInfo('StorageClass');
    return this.json<KubeObject>(`get StorageClass ${name}`, { method: 'GET', path: objectPath(info, '', name) });
  }

  async listTidbClusters(page: PageRequest): Promise<TidbClusterPage> {
    return this.listObjectPage('TidbCluster', page);
  }

  async listObjectPage(kind: KnownKind, page: PageRequest): Promise<TidbClusterPage> {
    const info = kindInfo(kind);
    const query = new URLSearchParams({ limit: String(page.limit) });
    if (page.continue) query.set('continue', page.continue);
    const list = await this.json<RawList>(kind === 'TidbCluster' ? 'list TidbClusters' : `list ${kind}s`, { method: 'GET', path: `${collectionPath(info, page.namespace)}?${query}` });
    const next = list.metadata?.continue;
    return { items: itemsOf(list.items ?? [], info), resourceVersion: list.metadata?.resourceVersion ?? '', ...(next ? { continue: next } : {}) };
  }

  /** Every object of a selected LIST, page by page (`listAllPages`), one snapshot at the first page's resourceVersion. */
  private async listPaged(info: KindInfo, namespace: string | undefined, labelSelector: LabelSelector, what: string): Promise<ObjectList> {
    const path = collectionPath(info, namespace);
    const list = await listAllPages((continueToken) => {
      const query = new URLSearchParams({ labelSelector: encodeSelector(labelSelector), limit: String(this.pageLimit) });
      if (continueToken !== undefined) query.set('continue', continueToken);
      return this.json<RawList>(what, { method: 'GET', path: `${path}?${query}` });
    });
    return { items: itemsOf(list.items, info), resourceVersion: list.resourceVersion };
  }

  async create(obj: KubeObject): Promise<KubeObject> {
    const info = kindInfo(obj.kind);
    // A cluster-scoped kind (a TidbMonitor's ClusterRole) is created at the collection without a namespace.
    const namespace = info.clusterScoped ? undefined : requireNamespace(obj);
    const body = { ...obj, apiVersion: apiVersionOf(info), kind: info.kind };
    const what = `create ${describe(obj)}`;
    const req: HttpRequest = { method: 'POST', path: collectionPath(info, namespace), body: JSON.stringify(body) };
    // A generated name is not repeatable: a second POST would make a second object.
    const repeat = obj.metadata.name ? SAFE : ONCE;
    return withRetries(this.retry, repeat, async (attempt) => {
      try {
        return await this.json<KubeObject>(what, req, ONCE);
      } catch (err) {
        // A repeat answered AlreadyExists: the earlier attempt may have created it with its answer lost.
        if (attempt > 0 && isAlreadyExists(err)) return this.ownCreate(obj, err);
        throw err;
      }
    });
  }

  async update(obj: KubeObject): Promise<KubeObject> {
    return this.replace(obj, undefined);
  }

  async updateStatus(obj: KubeObject): Promise<KubeObject> {
    if (!STATUS_SUBRESOURCE_KINDS.has(String(obj.kind))) throw new TerminalError(`updateStatus is for kinds with a status subresource (${[...STATUS_SUBRESOURCE_KINDS].join(', ')}), not ${String(obj.kind)}`, { field: 'kind' });
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
    // Only a guarded delete is repeated: an unguarded repeat could delete a namesake created since.
    const repeat = Object.keys(preconditions).length > 0 ? SAFE : ONCE;
    await this.call(`delete ${kind} ${namespace}/${name}`, { method: 'DELETE', path: objectPath(kindInfo(kind), namespace, name), body: JSON.stringify(body) }, repeat);
  }

  async createEvent(event: EventInput): Promise<EventRecord> {
    const name = eventName(event);
    try {
      await this.create(buildEvent(event, this.clock.nowMs()));
      return { name, created: true };
    } catch (err) {
      // The name is derived from the report: it exists, so this is a repeat — count it (once).
      if (!isAlreadyExists(err)) throw err;
      return { name, created: false, counted: await this.countRepeat(event, name) };
    }
  }

  /**
   * Counts a repeat of the Event `name`: GET it, then a merge patch of `count` and `lastTimestamp`
   * under its resourceVersion; a conflict (another step counted meanwhile) reads it again, once.
   * False when it had counted this occurrence already.
   */
  private async countRepeat(event: EventInput, name: string): Promise<boolean> {
    const namespace = event.involvedObject.namespace;
    const path = objectPath(kindInfo('Event'), namespace, name);
    for (let attempt = 0; ; attempt++) {
      const existing = await this.json<KubeObject>(`get Event ${namespace}/${name}`, { method: 'GET', path });
      const patch = repeatPatch(existing, event.occurrenceKey, this.clock.nowMs());
      if (patch === undefined) return false;
      try {
        await this.patch('Event', namespace, name, patch, { resourceVersion: existing.metadata.resourceVersion ?? '' });
        return true;
      } catch (err) {
        if (!(err instanceof ConflictError) || attempt > 0) throw err;
      }
    }
  }

  private async replace(obj: KubeObject, subresource: 'status' | undefined): Promise<KubeObject> {
    const info = kindInfo(obj.kind);
    const what = `${subresource ? 'update status of' : 'update'} ${describe(obj)}`;
    if (!obj.metadata.resourceVersion) {
      throw new TerminalError(`${what} refused: an update must carry the observed metadata.resourceVersion`, { field: 'metadata.resourceVersion' });
    }
    const path = objectPath(info, info.clusterScoped ? '' : requireNamespace(obj), requireName(obj), subresource);
    return this.json<KubeObject>(what, { method: 'PUT', path, body: JSON.stringify({ ...obj, apiVersion: apiVersionOf(info), kind: info.kind }) });
  }

  async hasSecret(namespace: string, name: string): Promise<boolean> {
    if (namespace === '' || name === '') throw new TerminalError('hasSecret needs a namespace and a name', { field: 'name' });
    const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets/${encodeURIComponent(name)}`;
    try {
      await this.call(`get Secret ${namespace}/${name}`, { method: 'GET', path });
      return true;
    } catch (err) {
      if (err instanceof NotFoundError) return false;
      throw err;
    }
  }

  async copySecret(copy: SecretCopySpec): Promise<void> {
    const read = async (namespace: string, name: string): Promise<KubeObject | undefined> => {
      const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets/${encodeURIComponent(name)}`;
      try {
        return await this.json<KubeObject>(`get Secret ${namespace}/${name}`, { method: 'GET', path });
      } catch (err) {
        if (err instanceof NotFoundError) return undefined;
        throw err;
      }
    };
    await copySecretWith({ read, create: (o) => this.create(o), update: (o) => this.update(o) }, copy);
  }

  async listDeployments(namespace: string | undefined, labelSelector: LabelSelector): Promise<ObjectList> {
    return this.listPaged(kindInfo('Deployment'), namespace, labelSelector, `list Deployment in ${namespace ?? 'every namespace'}`);
  }

  async getLease(namespace: string, name: string): Promise<KubeObject | undefined> {
    return this.getObject('Lease', namespace, name);
  }

  async getObject(kind: KnownKind, namespace: string, name: string): Promise<KubeObject | undefined> {
    const info = kindInfo(kind);
    try {
      return await this.json<KubeObject>(`get ${kind} ${namespace}/${name}`, { method: 'GET', path: objectPath(info, namespace, name) });
    } catch (err) {
      if (err instanceof NotFoundError) return undefined;
      throw err;
    }
  }

  async listObjects(kind: KnownKind, namespace: string, labelSelector: LabelSelector): Promise<KubeObject[]> {
    return (await this.listPaged(kindInfo(kind), namespace, labelSelector, `list ${kind} in ${namespace}`)).items;
  }

  async secretKeys(namespace: string, name: string): Promise<string[] | undefined> {
    if (namespace === '' || name === '') throw new TerminalError('secretKeys needs a namespace and a name', { field: 'name' });
    const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets/${encodeURIComponent(name)}`;
    try {
      // Only the key names are kept; the values are dropped here, before anything could log them.
      const secret = await this.json<{ data?: Record<string, unknown>; stringData?: Record<string, unknown> }>(`get Secret ${namespace}/${name}`, { method: 'GET', path });
      return [...new Set([...Object.keys(secret.data ?? {}), ...Object.keys(secret.stringData ?? {})])].sort();
    } catch (err) {
      if (err instanceof NotFoundError) return undefined;
      throw err;
    }
  }

  /**
   * One SubjectAccessReview. Repeated on transient failures like a read: the review is not stored,
   * so a repeat asks the same question again.
   */
  async reviewAccess(review: AccessReview): Promise<AccessDecision> {
    const resourceAttributes = { namespace: review.namespace, verb: review.verb, group: review.group, resource: review.resource, ...(review.name === undefined ? {} : { name: review.name }) };
    const body = { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user: review.user, groups: [...review.groups], resourceAttributes } };
    const what = `review access of ${review.user} to ${review.verb} ${review.resource}${review.group ? `.${review.group}` : ''} in ${review.namespace}`;
    const answer = await this.json<{ status?: { allowed?: unknown; denied?: unknown; reason?: unknown; evaluationError?: unknown } }>(what, { method: 'POST', path: '/apis/authorization.k8s.io/v1/subjectaccessreviews', body: JSON.stringify(body) });
    const status = answer.status ?? {};
    const evaluationError = typeof status.evaluationError === 'string' && status.evaluationError !== '' ? status.evaluationError : undefined;
    return { allowed: status.allowed === true, denied: status.denied === true, reason: typeof status.reason === 'string' ? status.reason : '', ...(evaluationError === undefined ? {} : { evaluationError }) };
  }

  /**
   * The object a create that answered AlreadyExists on a repeat found: it is taken as this create's
   * result only when it has the same controller owner (same uid) as the object sent — the earlier
   * attempt's, or another step's for the same owner; either way an object of this owner, which the
   * next step observes and compares with its spec like any other. Anything else (no controller owner
   * to compare, another owner, gone again) stays the AlreadyExists conflict: the next step re-observes.
   */
  private async ownCreate(sent: KubeObject, conflict: unknown): Promise<KubeObject> {
    const owner = controllerUid(sent);
    if (owner === undefined) throw conflict;
    const info = kindInfo(sent.kind);
    let found: KubeObject;
    try {
      found = await this.json<KubeObject>(`get ${describe(sent)}`, { method: 'GET', path: objectPath(info, info.clusterScoped ? '' : requireNamespace(sent), requireName(sent)) });
    } catch (err) {
      if (err instanceof NotFoundError) throw conflict;
      throw err;
    }
    if (controllerUid(found) !== owner) throw conflict;
    return { ...found, apiVersion: apiVersionOf(info), kind: info.kind };
  }

  private async json<T>(what: string, req: HttpRequest, repeat: RetryCall = SAFE): Promise<T> {
    const text = await this.call(what, req, repeat);
    try {
      return JSON.parse(text) as T;
    } catch (err) {
      throw new TerminalError(`${what}: the API server answered with a body that is not JSON`, { cause: err });
    }
  }

  /**
   * Sends `req`, repeating it on the failures `repeat` allows. The default repeats transient
   * failures: right for reads and for writes guarded by a precondition (see the module comment).
   */
  private async call(what: string, req: HttpRequest, repeat: RetryCall = SAFE): Promise<string> {
    return withRetries(this.retry, repeat, async () => {
      const timeoutMs = callTimeoutMs(this.budget, this.clock.nowMs(), what);
      const answer = await this.http.send(req, timeoutMs, what);
      if (answer.status >= 400) throw kubeError(what, answer.status, answer.text, answer.retryAfterSeconds, answer.credentialsRefreshed);
      return answer.text;
    });
  }
}

/**
 * List items come without apiVersion/kind from the real server; set them so they can be written
 * back. The list was parsed for this call alone, so its items are completed in place, not copied.
 */
function itemsOf(items: KubeObject[], info: KindInfo): KubeObject[] {
  const apiVersion = apiVersionOf(info);
  for (const item of items as { apiVersion: string; kind: string }[]) {
    item.apiVersion = apiVersion;
    item.kind = info.kind;
  }
  return items;
}

/** The uid of the object's controller owner reference, if it has one. */
function controllerUid(obj: KubeObject): string | undefined {
  return obj.metadata.ownerReferences?.find((r) => r.controller === true)?.uid;
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
