/**
 * Server-side printing and metadata-only answers: the `Accept` negotiation of the real API server
 * for `GET` of one object or a list. `kubectl get` asks for
 * `application/json;as=Table;v=v1;g=meta.k8s.io, …;v=v1beta1…, application/json`; the first form
 * the server can produce wins: a meta.k8s.io Table (v1 or v1beta1) built by the kind's printer
 * (lib/sim/printers), PartialObjectMetadata(List), or the plain object. A header naming only forms
 * the server cannot produce is answered 406, as the real server does.
 */
import { ApiError, badRequest } from './api-error.js';
import type { KubeObject } from './object.js';
import type { TablePrinter } from './printers/format.js';

/** What the response to a GET is: the object (list) itself, a Table, or metadata only. */
export type AnswerForm = { readonly as: 'object' } | { readonly as: 'Table' | 'PartialObjectMetadata' | 'PartialObjectMetadataList'; readonly version: 'v1' | 'v1beta1' };

type MediaRange = { type: string; params: Record<string, string> };

function parseAccept(accept: string): MediaRange[] {
  return accept
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map((part) => {
      const [type = '', ...rest] = part.split(';').map((s) => s.trim());
      const params: Record<string, string> = {};
      for (const p of rest) {
        const eq = p.indexOf('=');
        if (eq > 0) params[p.slice(0, eq).trim().toLowerCase()] = p.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
      }
      return { type: type.toLowerCase(), params };
    });
}

const JSON_TYPES = new Set(['application/json', 'application/*', '*/*']);
const META_VERSIONS = new Set(['v1', 'v1beta1']);

/**
 * The answer form for a GET, from its `Accept` header, in the client's order. `list` says whether
 * the request names a collection (PartialObjectMetadataList) or one object (PartialObjectMetadata).
 * Media types the server does not produce (protobuf, YAML, CBOR) are passed over; with no JSON
 * form left, an `as=` form that cannot be served is 406 and anything else the plain JSON object.
 */
export function negotiate(accept: string | undefined, list: boolean): AnswerForm {
  const ranges = parseAccept(accept ?? '');
  let unservable = false;
  for (const r of ranges) {
    if (!JSON_TYPES.has(r.type)) continue;
    const as = r.params.as;
    if (as === undefined) return { as: 'object' };
    const version = r.params.v;
    const servable = r.params.g === 'meta.k8s.io' && version !== undefined && META_VERSIONS.has(version) && (as === 'Table' || as === (list ? 'PartialObjectMetadataList' : 'PartialObjectMetadata'));
    if (servable) return { as, version } as AnswerForm;
    unservable = true;
  }
  if (unservable) throw new ApiError(406, 'NotAcceptable', 'the server was unable to respond with a content type that the client supports');
  return { as: 'object' };
}

type ListBody = { items?: KubeObject[]; metadata?: Record<string, unknown> };

function itemsOf(body: unknown): { items: KubeObject[]; metadata: Record<string, unknown> } {
  const list = body as ListBody;
  if (Array.isArray(list.items)) return { items: list.items, metadata: list.metadata ?? {} };
  const obj = body as KubeObject;
  return { items: [obj], metadata: obj.metadata.resourceVersion !== undefined ? { resourceVersion: obj.metadata.resourceVersion } : {} };
}

/**
 * `body` (one object or a list) as a meta.k8s.io Table of `version`, printed by `printer` at
 * `nowMs`. `includeObject` is the query parameter: `None`, `Object`, or (default) `Metadata`,
 * which puts a PartialObjectMetadata in each row; any other value is 400, as the real server.
 * Every column is computed, the wide ones (priority > 0) too: kubectl hides them unless `-o wide`.
 */
export function asTable(printer: TablePrinter, body: unknown, nowMs: number, includeObject: string | null, version: 'v1' | 'v1beta1' = 'v1'): Record<string, unknown> {
  if (includeObject !== null && includeObject !== '' && includeObject !== 'None' && includeObject !== 'Object' && includeObject !== 'Metadata') {
    throw badRequest(`unrecognized includeObject value: ${JSON.stringify(includeObject)}`);
  }
  const apiVersion = `meta.k8s.io/${version}`;
  const { items, metadata } = itemsOf(body);
  const rows = items.map((obj) => {
    const conditions = printer.conditions?.(obj);
    return { cells: printer.cells(obj, nowMs), ...(conditions ? { conditions } : {}), object: rowObject(obj, includeObject, apiVersion) };
  });
  const columnDefinitions = printer.columns.map((c) => ({ name: c.name, type: c.type, format: c.format ?? '', description: c.description ?? '', priority: c.priority ?? 0 }));
  return { kind: 'Table', apiVersion, metadata, columnDefinitions, rows };
}

function rowObject(obj: KubeObject, includeObject: string | null, apiVersion: string): unknown {
  if (includeObject === 'None') return null;
  if (includeObject === 'Object') return obj;
  return partial(obj, apiVersion);
}

function partial(obj: KubeObject, apiVersion: string): Record<string, unknown> {
  return { kind: 'PartialObjectMetadata', apiVersion, metadata: obj.metadata };
}

/** `body` (one object or a list) as PartialObjectMetadata or PartialObjectMetadataList of meta.k8s.io/`version`. */
export function asPartialMetadata(body: unknown, version: 'v1' | 'v1beta1'): Record<string, unknown> {
  const apiVersion = `meta.k8s.io/${version}`;
  if (!Array.isArray((body as ListBody).items)) return partial(body as KubeObject, apiVersion);
  const { items, metadata } = itemsOf(body);
  return { kind: 'PartialObjectMetadataList', apiVersion, metadata, items: items.map((obj) => partial(obj, apiVersion)) };
}

/**
 * The body a GET answers with, shaped as its `Accept` header asks (see `negotiate`): the object or
 * list itself, a Table printed by `printer` (`query` carries includeObject), or metadata only.
 */
export function shapeGetAnswer(printer: TablePrinter, body: unknown, accept: string | undefined, query: URLSearchParams, nowMs: number): unknown {
  const list = Array.isArray((body as ListBody).items);
  const answer = negotiate(accept, list);
  if (answer.as === 'object') return body;
  if (answer.as === 'Table') return asTable(printer, body, nowMs, query.get('includeObject'), answer.version);
  return asPartialMetadata(body, answer.version);
}

/**
 * How a watch's event objects are shaped for its `Accept` header: undefined for plain objects,
 * else a function giving each event's Table (one row; the column definitions only in the first,
 * as the real server saves bandwidth and kubectl reuses the last columns) or PartialObjectMetadata.
 */
export function watchShaper(printer: TablePrinter, accept: string | undefined, query: URLSearchParams, nowMs: () => number): ((obj: KubeObject) => unknown) | undefined {
  const answer = negotiate(accept, false);
  if (answer.as === 'object') return undefined;
  const version = answer.version;
  if (answer.as !== 'Table') return (obj) => asPartialMetadata(obj, version);
  const includeObject = query.get('includeObject');
  // Checked now, so a bad value is refused before the stream starts.
  asTable(printer, { items: [] }, nowMs(), includeObject, version);
  let first = true;
  return (obj) => {
    const table = asTable(printer, obj, nowMs(), includeObject, version);
    // As the server's watch encoder: NoHeaders after the first event, so the definitions are null.
    if (!first) table.columnDefinitions = null;
    first = false;
    return table;
  };
}
