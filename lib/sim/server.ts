/**
 * The simulated Kubernetes API server over HTTP on loopback. @kubernetes/client-node and kubectl
 * use it unchanged: discovery, CRUD with optimistic concurrency, all three patch types and
 * server-side apply, watch, status and scale subresources, service and pod proxy to in-process
 * handlers; with a gate (gate.ts), every request authenticated by bearer token and authorised by RBAC.
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { ACCESS_REVIEW_PATH, SELF_ACCESS_REVIEW_PATH, handleAccessReview, handleSelfAccessReview } from './access-review.js';
import { CLUSTER_ADMIN_USER, unauthorized } from './authn.js';
import type { ApiGate } from './gate.js';
import type { RbacUser } from './rbac.js';
import { ApiError } from './api-error.js';
import { APPLY_PATCH_TYPE } from './apply-handler.js';
import { parse as parseYaml } from 'yaml';
import { decodeBuiltinFields } from './builtin-fields.js';
import { discoveryDocument } from './discovery.js';
import { openApiDocument, openApiIndex } from './openapi.js';
import { buildFilter } from './filters.js';
import { parseJsonBody, readBody, readBodyBytes, sendError, sendJson } from './http-util.js';
import { type PrinterColumnDefinition, type TablePrinter, customResourcePrinter, printerForKind } from './printers/index.js';
import { PROTOBUF_MEDIA_TYPE, decodeProtobufBody } from './protobuf/decode.js';
import { shapeGetAnswer, watchShaper } from './tables.js';
import type { ProxyRegistry } from './proxy.js';
import { handleResource } from './resource-handlers.js';
import type { ResourceDef } from './resources.js';
import { parseRoute } from './routes.js';
import type { ObjectStore } from './store.js';
import { serveWatch } from './watch.js';

/** Fault hook: may fail a request before it is served (the scenario runner's kube-api-errors). */
export type RequestHook = (method: string, path: string) => ApiError | undefined;

/**
 * A write a client made through the API, as the scenario report records it: the verb
 * (`create`, `update`, `updateStatus`, `patch`, `delete`), the object as stored after the write
 * (as it was, for a delete), or the error the server answered.
 */
export type WriteRecord = {
  verb: 'create' | 'update' | 'updateStatus' | 'patch' | 'delete';
  kind: string;
  namespace: string | undefined;
  name: string | undefined;
  object?: unknown;
  error?: string;
};

/** Options of the HTTP front end. */
export type ApiServerOptions = {
  /** When set (and no gate), every request must carry `Authorization: Bearer <token>` (401 otherwise). */
  token?: string;
  /** Authentication and RBAC on every request (401/403); without it, every caller acts as the cluster admin. */
  gate?: ApiGate;
  /** Interval between watch bookmarks, on the store's clock. */
  bookmarkIntervalMs?: number;
  requestHook?: RequestHook;
  /** Serve https with this certificate and key (PEM) instead of plain http: kubectl sends bearer tokens only over TLS. */
  tls?: { readonly certPem: string; readonly keyPem: string };
};

/** Serves the store over HTTP. */
export class SimApiServer {
  private server: Server | undefined;
  private readonly watchStops = new Set<() => void>();
  /** Requests served, by method; the benchmarks and the "no writes in a steady step" checks read it. */
  readonly requestCounts = new Map<string, number>();
  requestHook: RequestHook | undefined;
  /**
   * Told of every request the server accepted from its user (authenticated and authorised), before
   * it is served; the scenario runner counts them by caller and target.
   */
  onRequest: ((method: string, url: URL, user: RbacUser) => void) | undefined;
  /** Told of every write a client makes (successful or not); the scenario runner records them. */
  onWrite: ((record: WriteRecord) => void) | undefined;
  private serving = 0;

  /**
   * Whether a client's request is being applied to the store right now: a store change seen while
   * this holds is that request's (handling is synchronous), any other is a controller's.
   */
  get isServingRequest(): boolean {
    return this.serving > 0;
  }

  constructor(
    readonly store: ObjectStore,
    readonly proxy: ProxyRegistry,
    private readonly opts: ApiServerOptions = {},
  ) {
    this.requestHook = opts.requestHook;
  }

  /** Starts listening on 127.0.0.1 (port 0 picks a free one); resolves to the base URL. */
  async listen(port = 0, host = '127.0.0.1'): Promise<string> {
    const handler = (req: IncomingMessage, res: ServerResponse): void => void this.handle(req, res);
    const tls = this.opts.tls;
    const server: Server = tls ? createHttpsServer({ cert: tls.certPem, key: tls.keyPem }, handler) : createServer(handler);
    server.keepAliveTimeout = 5000;
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    return this.url();
  }

  /** The base URL, once listening. */
  url(): string {
    const addr = this.server?.address() as AddressInfo | null | undefined;
    if (!addr) throw new Error('the API server is not listening');
    return `${this.opts.tls ? 'https' : 'http'}://${addr.address}:${addr.port}`;
  }

  /** Ends open watches and stops listening. */
  async close(): Promise<void> {
    for (const stop of [...this.watchStops]) stop();
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    this.server = undefined;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    this.requestCounts.set(method, (this.requestCounts.get(method) ?? 0) + 1);
    try {
      const url = new URL(req.url ?? '/', 'http://sim');
      const user = this.authenticate(req, method, url);
      this.onRequest?.(method, url, user);
      const injected = this.requestHook?.(method, url.pathname);
      if (injected) throw injected;
      await this.route(req, res, method, url, user);
    } catch (err) {
      sendError(res, err);
    }
  }

  /**
   * How a resource's objects are printed as a table: a custom resource by its CRD's served version's
   * `additionalPrinterColumns`, a built-in kind by its own printer.
   */
  private printerFor(resource: ResourceDef): TablePrinter {
    const served = resource.custom ? this.store.resources.servedVersion(resource.kind, resource.version) : undefined;
    return served ? customResourcePrinter({ additionalPrinterColumns: served.printerColumns as PrinterColumnDefinition[] }) : printerForKind(resource.kind);
  }

  /** The user the request acts as, authorised (gate.ts); 401/403 thrown as the API server answers. */
  private authenticate(req: IncomingMessage, method: string, url: URL): RbacUser {
    if (this.opts.gate) return this.opts.gate.check(method, url, req.headers);
    if (this.opts.token && req.headers.authorization !== `Bearer ${this.opts.token}`) throw unauthorized();
    return CLUSTER_ADMIN_USER;
  }

  private async route(req: IncomingMessage, res: ServerResponse, method: string, url: URL, user: RbacUser): Promise<void> {
    const path = url.pathname;
    if (path === '/healthz' || path === '/livez' || path === '/readyz') {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end('ok');
      return;
    }
    if (path === '/openapi/v3' || path.startsWith('/openapi/v3/')) {
      const doc = path === '/openapi/v3' ? openApiIndex(this.store.resources) : openApiDocument(path.slice('/openapi/v3/'.length), this.store.resources);
      if (!doc) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
      sendJson(res, 200, doc);
      return;
    }
    if (path === ACCESS_REVIEW_PATH || path === `${ACCESS_REVIEW_PATH}/`) {
      // Create-only and never stored: answered from the world's RBAC objects (see access-review.ts).
      const contentType = (req.headers['content-type'] ?? 'application/json').split(';')[0]?.trim() ?? '';
      const body = method === 'POST' ? await readRequestBody(req, method, contentType, true) : undefined;
      const answer = handleAccessReview(this.store, method, body);
      sendJson(res, answer.code, answer.body);
      return;
    }
    if (path === SELF_ACCESS_REVIEW_PATH || path === `${SELF_ACCESS_REVIEW_PATH}/`) {
      const contentType = (req.headers['content-type'] ?? 'application/json').split(';')[0]?.trim() ?? '';
      const body = method === 'POST' ? await readRequestBody(req, method, contentType, true) : undefined;
      const answer = handleSelfAccessReview(this.store, user, method, body);
      sendJson(res, answer.code, answer.body);
      return;
    }
    const route = parseRoute(path, (g, v, p) => this.store.resources.byPlural(g, v, p));
    if (route.type === 'discovery') {
      const doc = discoveryDocument(route.path, this.store.resources.all());
      if (!doc) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
      sendJson(res, 200, doc);
      return;
    }
    if (route.type === 'unknown') throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
    if (route.type === 'badProxy') throw new ApiError(400, 'BadRequest', route.message);
    if (route.type === 'proxy') {
      const body = await readBody(req);
      const preq = { method, path: route.rest, query: url.searchParams, body, headers: flatHeaders(req) };
      const answer =
        route.target === 'pods'
          ? await this.proxy.toPod(route.namespace, route.name, route.port, preq, route.scheme)
          : await this.proxy.toService(route.namespace, route.name, route.port, preq, route.scheme);
      res.writeHead(answer.status, { 'Content-Type': answer.contentType ?? 'application/json' });
      res.end(answer.body);
      return;
    }
    const q = url.searchParams;
    const isWatch = route.watchPrefix || q.get('watch') === 'true' || q.get('watch') === '1';
    if (isWatch && method === 'GET') {
      const shape = watchShaper(this.printerFor(route.resource), req.headers.accept, q, () => this.store.clock.nowMs());
      const fieldSelector = route.name ? joinSelectors(q.get('fieldSelector'), `metadata.name=${route.name}`) : q.get('fieldSelector');
      serveWatch(
        this.store,
        res,
        {
          resource: route.resource,
          namespace: route.namespace,
          filter: buildFilter(route.resource.kind, q.get('labelSelector'), fieldSelector),
          resourceVersion: q.get('resourceVersion') ?? undefined,
          allowBookmarks: q.get('allowWatchBookmarks') === 'true',
          timeoutSeconds: q.has('timeoutSeconds') ? Number(q.get('timeoutSeconds')) : undefined,
          bookmarkIntervalMs: this.opts.bookmarkIntervalMs ?? 60_000,
          shape,
        },
        (stop) => {
          this.watchStops.add(stop);
          res.on('close', () => this.watchStops.delete(stop));
        },
      );
      return;
    }
    const contentType = (req.headers['content-type'] ?? 'application/json').split(';')[0]?.trim() ?? '';
    const needsBody = method === 'POST' || method === 'PUT' || method === 'PATCH';
    const raw = await readRequestBody(req, method, contentType, needsBody);
    // Creates and updates go through the kind's Go type, as on a real server (patches are merged as JSON).
    const body = method === 'POST' || method === 'PUT' ? decodeBuiltinFields(route.resource, raw, q.get('fieldValidation')) : raw;
    // Escalation prevention on RBAC objects (escalation.ts): only what the writer holds may be granted.
    if (this.opts.gate && route.resource.group === 'rbac.authorization.k8s.io' && (method === 'POST' || method === 'PUT')) this.opts.gate.confirmNoEscalation(user, route.resource.plural, route.namespace ?? '', body, method === 'POST' ? 'create' : 'update');
    const request = { method, resource: route.resource, namespace: route.namespace, name: route.name, subresource: route.subresource, query: q, contentType, body };
    const verb = writeVerb(method, route.subresource);
    let answer: ReturnType<typeof handleResource>;
    try {
      this.serving++;
      answer = handleResource(this.store, request);
    } catch (err) {
      if (verb) this.onWrite?.({ verb, kind: route.resource.kind, namespace: route.namespace, name: route.name ?? nameOf(body), error: (err as Error).message });
      throw err;
    } finally {
      this.serving--;
    }
    if (verb) this.onWrite?.({ verb, kind: route.resource.kind, namespace: route.namespace, name: route.name ?? nameOf(answer.body), object: answer.object ?? answer.body });
    // Server-side printing: a GET of objects (not of a Scale) answers in the form its Accept header asks for.
    const shaped = method === 'GET' && answer.code === 200 && route.subresource !== 'scale' ? shapeGetAnswer(this.printerFor(route.resource), answer.body, req.headers.accept, q, this.store.clock.nowMs()) : answer.body;
    for (const w of answer.warnings ?? []) res.appendHeader('Warning', `299 - ${JSON.stringify(w)}`);
    sendJson(res, answer.code, shaped);
  }
}

/**
 * The request body as an object: JSON or YAML text, or — for creates and updates — a Kubernetes
 * protobuf body, which kubectl's generator commands send (decoded to the same object). Any other
 * media type on a create or update is 415, as the real server answers.
 */
async function readRequestBody(req: IncomingMessage, method: string, contentType: string, needsBody: boolean): Promise<unknown> {
  const isWrite = method === 'POST' || method === 'PUT';
  if (isWrite && contentType === PROTOBUF_MEDIA_TYPE) return decodeProtobufBody(await readBodyBytes(req));
  if (isWrite && contentType !== 'application/json' && contentType !== 'application/yaml') {
    throw new ApiError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, ${PROTOBUF_MEDIA_TYPE}`);
  }
  const text = method === 'GET' ? '' : await readBody(req);
  if (method === 'PATCH' && contentType === APPLY_PATCH_TYPE) return parseApplyBody(text);
  return needsBody ? parseJsonBody(text) : text.trim() ? parseJsonBody(text) : undefined;
}

/** A server-side apply body: YAML (JSON being YAML too); 400 when it does not decode, as the real server. */
function parseApplyBody(text: string): unknown {
  try {
    return parseYaml(text) as unknown;
  } catch (err) {
    throw new ApiError(400, 'BadRequest', `error decoding YAML: ${(err as Error).message}`);
  }
}

/** The report's verb for a write request, or undefined for reads. */
function writeVerb(method: string, subresource: 'status' | 'scale' | undefined): WriteRecord['verb'] | undefined {
  if (method === 'POST') return 'create';
  if (method === 'PUT') return subresource === 'status' ? 'updateStatus' : 'update';
  if (method === 'PATCH') return subresource === 'status' ? 'updateStatus' : 'patch';
  if (method === 'DELETE') return 'delete';
  return undefined;
}

function nameOf(obj: unknown): string | undefined {
  const name = (obj as { metadata?: { name?: unknown } } | undefined)?.metadata?.name;
  return typeof name === 'string' ? name : undefined;
}

function flatHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') out[k] = v;
  return out;
}

function joinSelectors(a: string | null, b: string): string {
  return a ? `${a},${b}` : b;
}
