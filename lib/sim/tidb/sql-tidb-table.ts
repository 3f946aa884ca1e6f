/**
 * TiDB's `mysql.tidb` table as far as the world needs it: the row `tikv_gc_life_time`, which TiDB's
 * GC worker keeps at `10m0s` by default (pkg/store/gcworker/gc_worker.go: `gcLifeTimeKey`,
 * `gcDefaultLifeTime = 10 * time.Minute`, saved as the duration's String()). TiDB Operator's
 * backup-manager reads and writes it with plain SQL (cmd/backup-manager/app/util/generic.go
 * `GetTikvGCLifeTime`, `SetTikvGCLifeTime` on release-1.6):
 *   select variable_value from mysql.tidb where variable_name= ?
 *   update mysql.tidb set variable_value = ? where variable_name = ?
 * An UPDATE of the table is not validated when written (it is an ordinary table); TiDB validates
 * when its GC worker reads it (`loadDurationWithDefault`): a value Go's time.ParseDuration refuses
 * stops GC with that error, and a value below `gcMinLifeTime` (10m) is used — and saved back — as
 * 10m0s. `gcLifeTime()` gives that reading; every write is kept with its time and writer so the
 * scenario report can show who raised and who restored it.
 */
import { GoDurationError, NS_PER_MS, formatGoDuration, parseGoDuration } from './go-duration.js';
import type { SqlError } from './sql.js';

/** The GC life time's row name. */
export const GC_LIFE_TIME = 'tikv_gc_life_time';
/** TiDB's default and minimum GC life time (gcDefaultLifeTime, gcMinLifeTime). */
export const GC_MIN_LIFE_TIME_NS = 10n * 60n * 1_000_000_000n;
/** The value TiDB writes by default: `10m0s`. */
export const DEFAULT_GC_LIFE_TIME = formatGoDuration(GC_MIN_LIFE_TIME_NS);

/** Who ran a statement: the session's user and the client's address (the pod IP). */
export type SqlClient = { readonly user: string; readonly clientHost: string };

/** One write of a `mysql.tidb` row. */
export type TidbRowWrite = { readonly atMs: number; readonly name: string; readonly value: string; readonly user: string; readonly clientHost: string };

/** A statement's result: an error, or the rows it selected (none for a write). */
export type SqlResult = { readonly error: SqlError } | { readonly rows: readonly (readonly string[])[] };

const STR = String.raw`'((?:[^'\\]|\\.)*)'`;
const unescape = (s: string | undefined): string => (s ?? '').replace(/\\(.)/g, (_, c: string) => ({ n: '\n', t: '\t', '0': '\0' })[c] ?? c);
const SELECT = new RegExp(String.raw`^select\s+(?:high_priority\s+)?\(?variable_value\)?\s+from\s+mysql\.tidb\s+where\s+variable_name\s*=\s*${STR}(?:\s+for\s+update)?$`, 'i');
const UPDATE = new RegExp(String.raw`^update\s+mysql\.tidb\s+set\s+variable_value\s*=\s*${STR}\s+where\s+variable_name\s*=\s*${STR}$`, 'i');

/** The `mysql.tidb` rows of one cluster. */
export class TidbTable {
  private readonly rows = new Map<string, string>([[GC_LIFE_TIME, DEFAULT_GC_LIFE_TIME]]);
  /** Every write, oldest first. */
  readonly writes: TidbRowWrite[] = [];

  constructor(private readonly nowMs: () => number) {}

  /** The row's value, undefined when there is no such row. */
  value(name: string): string | undefined {
    return this.rows.get(name);
  }

  /**
   * The GC life time as TiDB's GC worker reads it: the stored text, and either the duration it
   * uses (raised to 10m when lower) or the parse error that stops GC.
   */
  gcLifeTime(): { readonly value: string; readonly effectiveMs?: number; readonly error?: string } {
    const value = this.rows.get(GC_LIFE_TIME) ?? DEFAULT_GC_LIFE_TIME;
    try {
      const ns = parseGoDuration(value);
      return { value, effectiveMs: Number((ns < GC_MIN_LIFE_TIME_NS ? GC_MIN_LIFE_TIME_NS : ns) / NS_PER_MS) };
    } catch (err) {
      if (err instanceof GoDurationError) return { value, error: err.message };
      throw err;
    }
  }

  /** Runs `sql` when it is a statement on `mysql.tidb` this table models; undefined otherwise. */
  statement(sql: string, client: SqlClient): SqlResult | undefined {
    const select = SELECT.exec(sql);
    if (select) {
      const v = this.rows.get(unescape(select[1]));
      return { rows: v === undefined ? [] : [[v]] };
    }
    const update = UPDATE.exec(sql);
    if (update) {
      const name = unescape(update[2]);
      const value = unescape(update[1]);
      // An UPDATE matching no row changes nothing (0 rows affected), as in MySQL.
      if (this.rows.has(name)) {
        this.rows.set(name, value);
        this.writes.push({ atMs: this.nowMs(), name, value, ...client });
      }
      return { rows: [] };
    }
    return undefined;
  }
}
