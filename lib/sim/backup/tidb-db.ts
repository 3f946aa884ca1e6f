/**
 * The backup-manager's connection to TiDB (`spec.from` of a Backup, `spec.to` of a Restore), as Go's
 * database/sql with go-sql-driver/mysql v1.8.1 (TiDB Operator release-1.6's go.mod) sees it: the
 * DSN's host is resolved by the cluster's DNS (`<svc>`, `<svc>.<ns>`, `<svc>.<ns>.svc[.cluster.local]`)
 * to a Service, and each exchange goes through the world's service proxy to a ready TiDB's port —
 * the same path the initializer's client takes (lib/sim/initializer/client.ts). Errors read as Go
 * prints them: a server error `Error 1045 (28000): Access denied …`, a refused dial
 * `dial tcp <host>:<port>: connect: connection refused`, an unknown host
 * `dial tcp: lookup <host>: no such host`, an empty result `sql: no rows in result set`.
 */
import { MysqlClientError, MysqlLink } from '../initializer/client.js';
import type { ProxyRegistry } from '../proxy.js';
import { type Pending, awaiting } from './process.js';

/** An error as the Go driver reports it (its text goes into the condition's message). */
export class GoSqlError extends Error {
  override readonly name = 'GoSqlError';
}

/** The TiDB access fields of a Backup's `from` / a Restore's `to`. */
export type TidbAccess = { readonly host?: string; readonly port?: number; readonly user?: string; readonly secretName?: string };

// The SQLSTATE TiDB sends with the errors the world answers (MySQL's table; HY000 for the rest).
const SQL_STATES: Readonly<Record<number, string>> = { 1045: '28000', 1142: '42000', 1146: '42S02', 1064: '42000', 1049: '42000' };

/** The Service a DSN host names from a pod in `podNamespace`, as the cluster's DNS resolves it; undefined when it names none. */
export function serviceOfHost(host: string, podNamespace: string): { namespace: string; service: string } | undefined {
  const parts = host.replace(/\.$/, '').split('.');
  const [service, namespace, ...rest] = parts;
  if (!service || !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(service)) return undefined;
  if (namespace === undefined) return { namespace: podNamespace, service };
  const tail = rest.join('.');
  if (tail === '' || tail === 'svc' || tail === 'svc.cluster.local') return { namespace, service };
  return undefined;
}

/** One open `*sql.DB` to TiDB: a logged-in session. */
export class GoSqlDb {
  private constructor(
    private readonly link: MysqlLink,
    private readonly session: string,
    private readonly where: string,
  ) {}

  /**
   * `pkgutil.OpenDB` (pkg/util/util.go): opens and pings as `user` — throws `GoSqlError` with
   * "cannot connect to tidb cluster, err: …" when the ping fails. `from` is the pod: its namespace
   * (for a bare host name) and its current IP (TiDB sees the connection come from it).
   */
  static *open(proxy: ProxyRegistry | undefined, from: { readonly namespace: string; clientHost(): string }, access: TidbAccess, password: string): Generator<Pending<unknown>, GoSqlDb, void> {
    const host = access.host ?? '';
    const port = access.port ?? 4000;
    const where = `${host}:${port}`;
    const svc = serviceOfHost(host, from.namespace);
    if (!proxy || !svc) throw new GoSqlError(`cannot connect to tidb cluster, err: dial tcp: lookup ${host}: no such host`);
    const link = new MysqlLink(proxy, svc.namespace, svc.service, port, () => from.clientHost());
    try {
      const session = yield* awaiting(link.connect(access.user || 'root', password));
      return new GoSqlDb(link, session, where);
    } catch (err) {
      throw new GoSqlError(`cannot connect to tidb cluster, err: ${goText(err, where)}`);
    }
  }

  /** `db.QueryRowContext(…).Scan(&s)`: the first column of the first row; `sql: no rows in result set` when none. */
  *queryRow(statement: string): Generator<Pending<unknown>, string, void> {
    let rows: readonly (readonly string[])[];
    try {
      rows = yield* awaiting(this.link.query(this.session, statement));
    } catch (err) {
      throw new GoSqlError(goText(err, this.where));
    }
    const first = rows[0]?.[0];
    if (first === undefined) throw new GoSqlError('sql: no rows in result set');
    return first;
  }

  /** `db.ExecContext`. */
  *exec(statement: string): Generator<Pending<unknown>, void, void> {
    try {
      yield* awaiting(this.link.query(this.session, statement));
    } catch (err) {
      throw new GoSqlError(goText(err, this.where));
    }
  }
}

/** A MySQL client error as go-sql-driver prints it. */
function goText(err: unknown, where: string): string {
  if (!(err instanceof MysqlClientError)) return err instanceof Error ? err.message : String(err);
  const { code, message } = err.error;
  if (code === 2005) return `dial tcp: lookup ${where.replace(/:\d+$/, '')}: no such host`;
  if (code === 2003) return `dial tcp ${where}: connect: connection refused`;
  if (code === 2013) return 'invalid connection';
  return `Error ${code} (${SQL_STATES[code] ?? 'HY000'}): ${message}`;
}
