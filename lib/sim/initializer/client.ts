/**
 * The MySQL client side of the simulated initializer: a connection to `<host>:<port>` in the pod's
 * namespace goes through the world's service proxy to a ready TiDB behind that Service (tidb's port
 * 4000, lib/sim/tidb/mysql-port.ts), and fails as MySQLdb reports it: no such Service is the
 * resolver's 2005 "Unknown MySQL server host", no ready endpoint or nothing listening is 2003
 * "Can't connect" (kube-proxy rejects a Service without endpoints at once, errno 111).
 */
import { ApiError } from '../api-error.js';
import type { ProxyRegistry } from '../proxy.js';
import { DialError } from '../proxy.js';
import { mysqlRequest, readMysqlAnswer, type MysqlAnswer, type MysqlExchange } from '../tidb/mysql-port.js';
import type { SqlError } from '../tidb/sql.js';

/** A MySQL error the client raises, with the Python exception class MySQLdb maps its code to. */
export class MysqlClientError extends Error {
  constructor(readonly error: SqlError) {
    super(`(${error.code}, ${pyRepr(error.message)})`);
    this.name = 'MysqlClientError';
  }

  /** MySQLdb's class: ProgrammingError for parse / name errors, IntegrityError for duplicates, else OperationalError. */
  get pythonClass(): string {
    if ([1064, 1149, 1007, 1050, 1051, 1146, 1054, 1110].includes(this.error.code)) return 'MySQLdb._exceptions.ProgrammingError';
    if ([1062, 1451, 1452].includes(this.error.code)) return 'MySQLdb._exceptions.IntegrityError';
    return 'MySQLdb._exceptions.OperationalError';
  }
}

/** Python's `repr` of a str: single quotes unless the text holds one and no double quote. */
export function pyRepr(s: string): string {
  if (s.includes("'") && !s.includes('"')) return `"${s}"`;
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** One server exchange from a pod: `namespace` and `host` name the Service, `clientHost` the pod IP. */
export class MysqlLink {
  constructor(
    private readonly proxy: ProxyRegistry,
    private readonly namespace: string,
    private readonly host: string,
    private readonly port: number,
    private readonly clientHost: () => string,
  ) {}

  /** `nc -z host port`: whether a TCP connection opens (the error text nc prints otherwise). */
  async probe(): Promise<string | undefined> {
    try {
      await this.send({});
      return undefined;
    } catch (err) {
      if (err instanceof MysqlClientError) return err.error.code === 2005 ? `nc: bad address '${this.host}'` : `nc: ${this.host} (${this.port}): Connection refused`;
      throw err;
    }
  }

  /** Logs in; the session id. Throws `MysqlClientError`. */
  async connect(user: string, password: string): Promise<string> {
    const answer = await this.send({ user, password });
    if ('error' in answer) throw new MysqlClientError(answer.error);
    return answer.session ?? '';
  }

  /** Runs one line on a session. Throws `MysqlClientError`. */
  async execute(session: string, statement: string): Promise<void> {
    await this.query(session, statement);
  }

  /** Runs one line on a session; the rows it selected. Throws `MysqlClientError`. */
  async query(session: string, statement: string): Promise<readonly (readonly string[])[]> {
    const answer = await this.send({ session, statement });
    if ('error' in answer) throw new MysqlClientError(answer.error);
    return answer.rows ?? [];
  }

  private async send(exchange: Omit<MysqlExchange, 'clientHost'>): Promise<MysqlAnswer> {
    try {
      const res = await this.proxy.toService(this.namespace, this.host, String(this.port), mysqlRequest({ ...exchange, clientHost: this.clientHost() }));
      return readMysqlAnswer(res);
    } catch (err) {
      if (err instanceof ApiError && err.code === 404) throw new MysqlClientError({ code: 2005, message: `Unknown MySQL server host '${this.host}' (-2)` });
      if (err instanceof ApiError || err instanceof DialError) throw new MysqlClientError({ code: 2003, message: `Can't connect to MySQL server on '${this.host}' (111)` });
      throw err;
    }
  }
}
