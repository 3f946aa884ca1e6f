/**
 * TiDB's MySQL port (4000) as the world's clients reach it through the service proxy: a request of
 * method `MYSQL` carries one exchange as JSON — a handshake (nothing else: the port answers, what
 * `nc -z` sees), a login (`user`, `password`: the answer names the new session), or one line of SQL
 * on a session — and the answer is `{"ok":true[,"session"]}` or the MySQL error
 * `{"error":{"code","message"}}`. Sessions are the cluster's (sql.ts), so a connection's statements
 * may reach any TiDB behind the Service; a password a line changes is needed by the next login, not
 * by the session already open, as in MySQL. Anything else on the port is not MySQL: the answer
 * TiDB's port gives an HTTP client.
 */
import type { ProxyRequest, ProxyResponse } from '../proxy.js';
import { json, text } from './http.js';
import type { SqlAccounts, SqlError } from './sql.js';

/** The request method of a MySQL exchange. */
export const MYSQL_METHOD = 'MYSQL';

/** One exchange: a login (`user`), a statement on an open `session`, or (neither) a handshake. */
export type MysqlExchange = { readonly clientHost: string; readonly user?: string; readonly password?: string; readonly session?: string; readonly statement?: string };

/** The answer of one exchange (`session`: the one a login opened; `rows`: what a SELECT read, when it read any). */
export type MysqlAnswer = { readonly ok: true; readonly session?: string; readonly rows?: readonly (readonly string[])[] } | { readonly error: SqlError };

/** The proxy request of an exchange. */
export function mysqlRequest(exchange: MysqlExchange): ProxyRequest {
  return { method: MYSQL_METHOD, path: '/', query: new URLSearchParams(), body: JSON.stringify(exchange), headers: {} };
}

/**
 * TiDB's answer: a login checks `accounts`; a statement then needs storage (`storageError` says why
 * there is none: TiDB's 9001 / 9005) and runs against `accounts`.
 */
export function answerMysql(req: ProxyRequest, accounts: SqlAccounts, storageError: () => SqlError | undefined): ProxyResponse {
  if (req.method !== MYSQL_METHOD) return text(400, 'not an HTTP port', false);
  let exchange: MysqlExchange;
  try {
    exchange = JSON.parse(req.body) as MysqlExchange;
  } catch {
    return json(200, { error: { code: 1047, message: 'Unknown command' } });
  }
  if (exchange.user !== undefined) {
    const denied = accounts.login(exchange.user, exchange.password ?? '', exchange.clientHost);
    return json(200, denied ? { error: denied } : { ok: true, session: accounts.openSession(exchange.user) });
  }
  if (exchange.session === undefined) return json(200, { ok: true });
  if (!accounts.hasSession(exchange.session)) return json(200, { error: { code: 2013, message: 'Lost connection to MySQL server during query' } });
  const statement = exchange.statement ?? '';
  if (statement.trim() === '') return json(200, { ok: true });
  const unavailable = storageError();
  if (unavailable) return json(200, { error: unavailable });
  const result = accounts.run(statement, { user: accounts.userOf(exchange.session), clientHost: exchange.clientHost });
  if ('error' in result) return json(200, { error: result.error });
  return json(200, result.rows.length > 0 ? { ok: true, rows: result.rows } : { ok: true });
}

/** Reads an answer (a non-JSON body is the client's "Lost connection", 2013). */
export function readMysqlAnswer(res: ProxyResponse): MysqlAnswer {
  try {
    const body = JSON.parse(res.body) as { ok?: boolean; session?: string; rows?: string[][]; error?: SqlError };
    if (body.error) return { error: body.error };
    if (body.ok) return { ok: true, ...(body.session === undefined ? {} : { session: body.session }), ...(body.rows === undefined ? {} : { rows: body.rows }) };
  } catch {
    // fall through
  }
  return { error: { code: 2013, message: 'Lost connection to MySQL server during query' } };
}
