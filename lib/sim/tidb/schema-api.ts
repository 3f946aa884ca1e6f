/**
 * TiDB's schema endpoints on the status port (10080), as TiDB's HTTP API answers them
 * (pingcap/tidb's `tidb_http_api.md`, pkg/server/handler/tikvhandler/tikv_handler.go `SchemaHandler`):
 * `GET /schema` lists every database's `DBInfo` (`{"id", "db_name": {"O", "L"}, "charset", "collate",
 * "state"}`), `GET /schema/{db}` the `TableInfo`s of one (`{"id", "name": {"O", "L"}, …}`), and a
 * database that does not exist is answered 400 with `[schema:1049]Unknown database '<db>'` (the
 * handler's `writeError`). The simulated cluster's schema is the system databases TiDB creates at
 * bootstrap, plus — once its notional dataset holds data (a workload wrote, or a restore brought
 * it) — the user database `app` with the table `t` that data lives in, and the (empty) databases
 * SQL created (`CREATE DATABASE`, e.g. a TidbInitializer's init SQL: sql.ts).
 */
import type { ProxyRequest, ProxyResponse } from '../proxy.js';
import { json, text } from './http.js';

/** The databases every bootstrapped TiDB has (TiDB's `bootstrap` plus the memory schemas). */
const SYSTEM_DATABASES = ['INFORMATION_SCHEMA', 'METRICS_SCHEMA', 'PERFORMANCE_SCHEMA', 'mysql', 'sys'];

/** The user database and table a cluster holding data has. */
export const USER_DATABASE = 'app';
const USER_TABLE = 't';

const model = (o: string): { O: string; L: string } => ({ O: o, L: o.toLowerCase() });

/** The schema answer for `req` when it is a `/schema` request (undefined otherwise); `hasData` says whether the cluster holds user data, `created` the databases SQL created. */
export function answerSchema(req: ProxyRequest, hasData: boolean, created: readonly string[] = []): ProxyResponse | undefined {
  const m = /^\/schema(?:\/([^/?]+))?\/?$/.exec(req.path);
  if (!m || req.method !== 'GET') return undefined;
  const base = [...SYSTEM_DATABASES, ...(hasData ? [USER_DATABASE] : [])];
  const databases = [...base, ...created.filter((c) => !base.some((b) => b.toLowerCase() === c.toLowerCase()))];
  const db = m[1] === undefined ? undefined : decodeURIComponent(m[1]);
  if (db === undefined) return json(200, databases.map((name, i) => ({ id: i + 1, db_name: model(name), charset: 'utf8mb4', collate: 'utf8mb4_bin', state: 5 })));
  const known = databases.find((d) => d.toLowerCase() === db.toLowerCase());
  if (known === undefined) return text(400, `[schema:1049]Unknown database '${db}'`, false);
  // System tables are not modelled one by one: the Restore's check reads only user databases.
  const tables = known === USER_DATABASE ? [USER_TABLE] : [];
  return json(200, tables.map((name, i) => ({ id: 100 + i, name: model(name), charset: 'utf8mb4', collate: 'utf8mb4_bin', state: 5 })));
}
