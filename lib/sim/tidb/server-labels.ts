/**
 * A TiDB server's labels, as TiDB's `LabelHandler` keeps them: in the process's memory only (its
 * global config), starting from the `[labels]` table of tidb.toml. `POST /labels` takes a JSON
 * object of strings, decoded as Go's `json.Decoder` into `map[string]string` (an empty body is
 * `EOF`; a value that is not a string, or a body that is not an object, is refused with Go's
 * message); a non-empty one is merged over the current labels (keys not sent are kept), and the
 * answer is the labels now held, as JSON. Any other method is refused. Refusals are 400 with the
 * error text, as TiDB's `WriteError`.
 */
import type { ProxyRequest, ProxyResponse } from '../proxy.js';
import { json, text } from './http.js';

/** The labels one TiDB process holds, and the container instance holding them. */
export type HeldLabels = { readonly instance: string; labels: Record<string, string> };

/** The Go JSON type name of a decoded value, as `json: cannot unmarshal <type> into …` names it. */
function goType(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'object' : typeof value === 'boolean' ? 'bool' : typeof value;
}

/** The body decoded as Go decodes it into `map[string]string`, or Go's error text. */
export function decodeLabels(body: string): { labels: Record<string, string> } | { error: string } {
  if (body.trim() === '') return { error: 'EOF' };
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return { error: 'invalid character in JSON body' };
  }
  // As Go: `null` leaves the map empty.
  if (value === null) return { labels: {} };
  if (typeof value !== 'object' || Array.isArray(value)) return { error: `json: cannot unmarshal ${goType(value)} into Go value of type map[string]string` };
  const labels: Record<string, string> = {};
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (v !== null && typeof v !== 'string') return { error: `json: cannot unmarshal ${goType(v)} into Go value of type string` };
    labels[key] = v ?? '';
  }
  return { labels };
}

/** The `[labels]` table of a parsed tidb.toml (string values only, as TiDB's config takes them). */
export function configuredLabels(config: Record<string, unknown> | undefined): Record<string, string> {
  const table = config?.['labels'];
  if (table === null || typeof table !== 'object' || Array.isArray(table)) return {};
  return Object.fromEntries(Object.entries(table as Record<string, unknown>).flatMap(([k, v]) => (typeof v === 'string' ? [[k, v]] : [])));
}

/**
 * Answers `/labels` for the process holding `held`; `accepted` is told the labels of every post
 * TiDB accepted (the body as sent), `refused` the error of every refusal.
 */
export function answerLabels(req: ProxyRequest, held: HeldLabels, report: { accepted(body: Record<string, string>): void; refused(error: string): void }): ProxyResponse {
  if (req.method !== 'POST') return text(400, 'This api only support POST method', false);
  const decoded = decodeLabels(req.body);
  if ('error' in decoded) {
    report.refused(decoded.error);
    return text(400, decoded.error, false);
  }
  if (Object.keys(decoded.labels).length > 0) {
    held.labels = { ...held.labels, ...decoded.labels };
    report.accepted(decoded.labels);
  }
  return json(200, held.labels);
}
