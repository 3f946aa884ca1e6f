/**
 * What a TiDB server's status port (10080) says of the cluster's schema: `GET /schema` lists the
 * databases, `GET /schema/{db}` a database's tables (TiDB's HTTP API, pingcap/tidb's `tidb_http_api.md`). The
 * Restore controller asks it whether a target cluster already holds user tables (BR's own "not a
 * fresh cluster" check looks at the same thing, pingcap/tidb#45014).
 */
import { type ComponentCaller } from './caller.js';
import { asRecord } from './json.js';
import { TIDB_STATUS_PORT } from './tidb.js';

/** The databases TiDB creates itself; tables in them are not user data. */
export const SYSTEM_DATABASES: ReadonlySet<string> = new Set(['mysql', 'information_schema', 'performance_schema', 'metrics_schema', 'sys', 'lightning_task_info', 'tidb_cdc']);

/** The schema reads of one TidbCluster's TiDB. */
export interface TidbSchemaPort {
  /** `<db>.<table>` of every table outside the system databases, read through the TiDB pod `podName`. */
  userTables(podName: string): Promise<string[]>;
}

/** `TidbSchemaPort` over the component caller (the API server's pod proxy, or directly). */
export class TidbSchemaClient implements TidbSchemaPort {
  constructor(
    private readonly caller: ComponentCaller,
    readonly target: { namespace: string; tcName: string; scheme?: 'http' | 'https' },
  ) {}

  async userTables(podName: string): Promise<string[]> {
    const endpoint = { type: 'pod' as const, namespace: this.target.namespace, pod: podName, subdomain: `${this.target.tcName}-tidb-peer`, port: TIDB_STATUS_PORT, ...(this.target.scheme ? { scheme: this.target.scheme } : {}) };
    const dbs = namesOf(await this.caller.json(endpoint, { method: 'GET', path: '/schema' }, `TiDB schema of ${podName}`), 'db_name');
    const tables: string[] = [];
    for (const db of dbs.filter((d) => !SYSTEM_DATABASES.has(d.toLowerCase()))) {
      const path = `/schema/${encodeURIComponent(db)}`;
      for (const table of namesOf(await this.caller.json(endpoint, { method: 'GET', path }, `TiDB tables of ${db} on ${podName}`), 'name')) tables.push(`${db}.${table}`);
    }
    return tables;
  }
}

/** The `O` (original) names of a list of TiDB model infos (`{"db_name": {"O": "x", "L": "x"}}`). */
function namesOf(body: unknown, field: string): string[] {
  if (!Array.isArray(body)) return [];
  return body.flatMap((item) => {
    const name = asRecord(asRecord(item)[field]);
    return typeof name['O'] === 'string' ? [name['O']] : [];
  });
}
