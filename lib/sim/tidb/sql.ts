/**
 * The little of TiDB's SQL layer the world models: the accounts of `mysql.user` (user, host pattern,
 * password), which every login checks, and the user databases `CREATE DATABASE` makes — kept per
 * cluster (they live in TiKV, so they outlive TiDB pods). A fresh cluster has `root`@`%` with an
 * empty password, as TiDB's bootstrap creates it (pkg/session/bootstrap.go `doDMLWorks`).
 *
 * Statements: account management (`SET PASSWORD FOR`, `CREATE USER [IF NOT EXISTS]`, `ALTER USER`,
 * `DROP USER [IF EXISTS]`, `GRANT … TO`, `UPDATE mysql.user SET Host=… WHERE User=…`, `FLUSH
 * PRIVILEGES`) and databases (`CREATE|DROP DATABASE|SCHEMA [IF [NOT] EXISTS]`, `USE`) change state
 * with MySQL's error codes and TiDB's messages (1007, 1008, 1049, 1396, 1410); the other statement
 * kinds TiDB parses are accepted without effect; anything else is TiDB's parser error 1064.
 * `mysql.tidb` (its `tikv_gc_life_time` row) is read and written by SELECT / UPDATE (sql-tidb-table.ts).
 */

import { type SqlClient, type SqlResult, TidbTable } from './sql-tidb-table.js';

/** A MySQL error as the client library reports it: `(code, 'message')`. */
export type SqlError = { readonly code: number; readonly message: string };

type Account = { user: string; host: string; password: string };

/** First words of the statements TiDB's parser accepts (those modelled or accepted without effect). */
const VERBS = new Set(['create', 'drop', 'alter', 'grant', 'revoke', 'set', 'use', 'insert', 'update', 'delete', 'select', 'flush', 'begin', 'commit', 'rollback', 'start', 'replace', 'truncate', 'rename', 'show', 'analyze', 'load', 'with', 'explain', 'desc', 'describe']);
const CREATE_OBJECTS = new Set(['database', 'schema', 'user', 'table', 'index', 'unique', 'view', 'role', 'sequence', 'temporary', 'global', 'or', 'placement', 'resource', 'binding', 'definer', 'algorithm', 'sql']);
const DROP_OBJECTS = new Set(['database', 'schema', 'user', 'table', 'index', 'view', 'role', 'sequence', 'stats', 'placement', 'resource', 'binding', 'temporary', 'global']);

/** TiDB's parser error for `sql`, near `offset` (the offending token's start). */
export function syntaxError(sql: string, offset: number): SqlError {
  const rest = sql.slice(offset).replace(/\r?\n$/, '');
  const token = /^\S*/.exec(rest)?.[0] ?? '';
  return { code: 1064, message: `You have an error in your SQL syntax; check the manual that corresponds to your TiDB version for the right syntax to use line 1 column ${offset + token.length} near "${rest}" ` };
}

const unquote = (s: string): string => s.replace(/^[`'"]|[`'"]$/g, '');
/** A single-quoted string literal (backslash escapes, as the client library writes parameters). */
const STR = String.raw`'((?:[^'\\]|\\.)*)'`;
/** A string literal's value. */
const unescape = (s: string | undefined): string => (s ?? '').replace(/\\(.)/g, (_, c: string) => ({ n: '\n', t: '\t', '0': '\0' })[c] ?? c);
const accountRe = String.raw`(['"\x60]?[^'"\x60@\s]+['"\x60]?)\s*(?:@\s*(['"\x60]?[^'"\x60\s;]*['"\x60]?))?`;

/** The accounts and databases of one cluster. */
export class SqlAccounts {
  private readonly accounts: Account[] = [{ user: 'root', host: '%', password: '' }];
  private readonly dbs = new Set<string>();
  private readonly sessions = new Map<string, string>();
  /** The `mysql.tidb` rows (the GC life time). */
  readonly tidbTable: TidbTable;

  /** `nowMs` stamps the writes of `mysql.tidb` (default: 0). */
  constructor(nowMs: () => number = () => 0) {
    this.tidbTable = new TidbTable(nowMs);
  }

  /** The user databases, lower-cased, in creation order. */
  databases(): string[] {
    return [...this.dbs];
  }

  /** The password of `user`@`host`, undefined when there is no such account. */
  passwordOf(user: string, host = '%'): string | undefined {
    return this.find(user, host)?.password;
  }

  /** Checks a login from `clientHost`; the error is TiDB's 1045 when no account of `user` matching the host has this password. */
  login(user: string, password: string, clientHost: string): SqlError | undefined {
    const ok = this.accounts.some((a) => a.user === user && hostMatches(a.host, clientHost) && a.password === password);
    if (ok) return undefined;
    return { code: 1045, message: `Access denied for user '${user}'@'${clientHost}' (using password: ${password === '' ? 'NO' : 'YES'})` };
  }

  /** Opens a session of `user` (after a login); its id. */
  openSession(user: string): string {
    const id = `${user}#${this.sessions.size + 1}`;
    this.sessions.set(id, user);
    return id;
  }

  /** The user a session logged in as ('' for none). */
  userOf(session: string | undefined): string {
    return session === undefined ? '' : (this.sessions.get(session) ?? '');
  }

  /** Whether a session is open. */
  hasSession(id: string): boolean {
    return this.sessions.has(id);
  }

  /** Runs one line as the client sends it (statements split on `;`); the first error stops it. */
  execute(line: string, client: SqlClient = { user: '', clientHost: '' }): SqlError | undefined {
    const result = this.run(line, client);
    return 'error' in result ? result.error : undefined;
  }

  /** `execute`, with the rows the last statement selected (none but for `mysql.tidb` reads). */
  run(line: string, client: SqlClient): SqlResult {
    let rows: readonly (readonly string[])[] = [];
    for (const { text, offset } of splitStatements(line)) {
      const result = this.statement(text.trim(), line, offset + (text.length - text.trimStart().length), client);
      if ('error' in result) return result;
      rows = result.rows;
    }
    return { rows };
  }

  private statement(sql: string, line: string, at: number, client: SqlClient): SqlResult {
    if (sql === '') return { rows: [] };
    const table = this.tidbTable.statement(sql, client);
    if (table !== undefined) return table;
    const error = this.check(sql, line, at);
    return error === undefined ? { rows: [] } : { error };
  }

  private check(sql: string, line: string, at: number): SqlError | undefined {
    const words = sql.split(/\s+/).map((w) => w.toLowerCase());
    const verb = words[0] ?? '';
    if (!VERBS.has(verb)) return syntaxError(line, at);
    const second = words[1] ?? '';
    const secondAt = at + sql.indexOf(sql.split(/\s+/)[1] ?? '', verb.length);
    if (verb === 'create' && !CREATE_OBJECTS.has(second)) return syntaxError(line, second === '' ? at + sql.length : secondAt);
    if (verb === 'drop' && !DROP_OBJECTS.has(second)) return syntaxError(line, second === '' ? at + sql.length : secondAt);
    return this.apply(sql);
  }

  private apply(sql: string): SqlError | undefined {
    let m = new RegExp(String.raw`^set\s+password\s+for\s+${accountRe}\s*=\s*${STR}$`, 'i').exec(sql);
    if (m) return this.setPassword('SET PASSWORD', unquote(m[1] ?? ''), unquote(m[2] ?? '%') || '%', unescape(m[3]));
    m = new RegExp(String.raw`^create\s+user\s+(if\s+not\s+exists\s+)?${accountRe}(?:\s+identified\s+by\s+${STR})?$`, 'i').exec(sql);
    if (m) return this.createUser(Boolean(m[1]), unquote(m[2] ?? ''), unquote(m[3] ?? '%') || '%', unescape(m[4]));
    m = new RegExp(String.raw`^alter\s+user\s+(?:if\s+exists\s+)?${accountRe}\s+identified\s+by\s+${STR}$`, 'i').exec(sql);
    if (m) return this.setPassword('ALTER USER', unquote(m[1] ?? ''), unquote(m[2] ?? '%') || '%', unescape(m[3]));
    m = new RegExp(String.raw`^drop\s+user\s+(if\s+exists\s+)?${accountRe}$`, 'i').exec(sql);
    if (m) return this.dropUser(Boolean(m[1]), unquote(m[2] ?? ''), unquote(m[3] ?? '%') || '%');
    m = new RegExp(String.raw`^grant\s+.+\s+to\s+${accountRe}(?:\s+with\s+grant\s+option)?$`, 'i').exec(sql);
    if (m) return this.find(unquote(m[1] ?? ''), unquote(m[2] ?? '%') || '%') ? undefined : { code: 1410, message: 'You are not allowed to create a user with GRANT' };
    m = /^update\s+mysql\.user\s+set\s+host\s*=\s*'([^']*)'\s+where\s+user\s*=\s*'([^']*)'$/i.exec(sql);
    if (m) {
      for (const a of this.accounts) if (a.user === m[2]) a.host = m[1] ?? '%';
      return undefined;
    }
    m = /^create\s+(?:database|schema)\s+(if\s+not\s+exists\s+)?([`\w$]+)$/i.exec(sql);
    if (m) return this.createDatabase(Boolean(m[1]), unquote(m[2] ?? ''));
    m = /^drop\s+(?:database|schema)\s+(if\s+exists\s+)?([`\w$]+)$/i.exec(sql);
    if (m) {
      const name = unquote(m[2] ?? '').toLowerCase();
      if (!this.dbs.delete(name) && !m[1]) return { code: 1008, message: `Can't drop database '${name}'; database doesn't exist` };
      return undefined;
    }
    m = /^use\s+([`\w$]+)$/i.exec(sql);
    if (m) {
      const name = unquote(m[1] ?? '');
      const known = SYSTEM_DATABASES.has(name.toLowerCase()) || this.dbs.has(name.toLowerCase());
      return known ? undefined : { code: 1049, message: `Unknown database '${name}'` };
    }
    return undefined;
  }

  private find(user: string, host: string): Account | undefined {
    return this.accounts.find((a) => a.user === user && a.host === host);
  }

  private setPassword(op: string, user: string, host: string, password: string): SqlError | undefined {
    const account = this.find(user, host);
    if (!account) return op === 'SET PASSWORD' ? { code: 1133, message: `Can't find any matching row in the user table` } : { code: 1396, message: `Operation ${op} failed for '${user}'@'${host}'` };
    account.password = password;
    return undefined;
  }

  private createUser(ifNotExists: boolean, user: string, host: string, password: string): SqlError | undefined {
    if (this.find(user, host)) return ifNotExists ? undefined : { code: 1396, message: `Operation CREATE USER failed for '${user}'@'${host}'` };
    this.accounts.push({ user, host, password });
    return undefined;
  }

  private dropUser(ifExists: boolean, user: string, host: string): SqlError | undefined {
    const i = this.accounts.findIndex((a) => a.user === user && a.host === host);
    if (i < 0) return ifExists ? undefined : { code: 1396, message: `Operation DROP USER failed for '${user}'@'${host}'` };
    this.accounts.splice(i, 1);
    return undefined;
  }

  private createDatabase(ifNotExists: boolean, name: string): SqlError | undefined {
    const key = name.toLowerCase();
    if (this.dbs.has(key) || SYSTEM_DATABASES.has(key)) return ifNotExists ? undefined : { code: 1007, message: `Can't create database '${name}'; database exists` };
    this.dbs.add(key);
    return undefined;
  }
}

const SYSTEM_DATABASES = new Set(['mysql', 'information_schema', 'performance_schema', 'metrics_schema', 'sys', 'test']);

/** Whether MySQL's host pattern (`%`, `_` wildcards) matches `host`. */
export function hostMatches(pattern: string, host: string): boolean {
  const re = new RegExp(`^${pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/%/g, '.*').replace(/_/g, '.')}$`, 'i');
  return re.test(host);
}

/** The statements of a line, split on `;` outside quotes, with their offsets. */
function splitStatements(line: string): { text: string; offset: number }[] {
  const out: { text: string; offset: number }[] = [];
  let quote: string | undefined;
  let start = 0;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote !== undefined) {
      if (c === '\\') i++;
      else if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"' || c === '`') quote = c;
    else if (c === ';') {
      out.push({ text: line.slice(start, i), offset: start });
      start = i + 1;
    }
  }
  out.push({ text: line.slice(start), offset: start });
  return out;
}
