/**
 * The TiDB side of a backup-manager run when its Backup has `from` (a Restore `to`): connecting to
 * TiDB and keeping MVCC history alive while BR runs, as release-1.6's
 * cmd/backup-manager/app/backup/manager.go (`validateAndCreateFromDB`, `performBackup`) and
 * app/restore/manager.go (`ProcessRestore`, `performRestore`) do:
 *   - connect: ping every 5 s (constants.PollInterval) for up to 30 min (constants.CheckTimeout);
 *     then Failed `ConnectTidbFailed` "timed out waiting for the condition" — a wrong password in
 *     the Secret keeps failing the ping until then;
 *   - read `tikv_gc_life_time` from `mysql.tidb` (`GetTikvGCLifeTimeFailed`), parse it with Go's
 *     time.ParseDuration (`ParseOldTikvGCLifeTimeFailed`), parse `spec.tikvGCLifeTime` or the
 *     default 72h (`ParseConfiguredTikvGCLifeTimeFailed`); when the current value is lower, set
 *     the target (`SetTikvGCLifeTimeFailed`);
 *   - after BR, succeeded or not, set the old value back (v1 gives it a fresh 25 s context; the
 *     world answers at once, so that bound never binds) — `ResetTikvGCLifeTimeFailed` then wins
 *     over BR's own outcome.
 * Each failure writes condition Failed with that reason and Go's error text, as v1's pod does.
 */
import type { KubeObject } from '../object.js';
import type { ProxyRegistry } from '../proxy.js';
import { GoDurationError, parseGoDuration } from '../tidb/go-duration.js';
import { GC_LIFE_TIME } from '../tidb/sql-tidb-table.js';
import type { Clock } from '../../platform/clock.js';
import type { ObjectStore } from '../store.js';
import type { Pending } from './process.js';
import { envOf } from './storage.js';
import { GoSqlDb, GoSqlError, type TidbAccess } from './tidb-db.js';

/** How often v1 pings TiDB while connecting, and for how long at most. */
export const TIDB_POLL_INTERVAL_MS = 5_000;
export const TIDB_CHECK_TIMEOUT_MS = 30 * 60_000;
/** The GC life time v1 raises to when the spec gives none (constants.TikvGCLifeTime). */
export const DEFAULT_TARGET_GC_LIFE_TIME = '72h';
/** The env the password Secret's `password` key reaches the pod by (constants.TidbPasswordKey with the manager's prefix). */
export const PASSWORD_ENV = 'BACKUP_MANAGER_PASSWORD';

/** Writes condition Failed with `reason` and `message`, then ends the run (throws). */
export type FailWith = (reason: string, message: string) => never;

/** What the world lends the TiDB access: the store (the pod's env), the clock and the service proxy. */
export type TidbAccessContext = { readonly store: ObjectStore; readonly clock: Clock; readonly proxy?: ProxyRegistry };

/** What raising did: the value read, and whether it was raised (so it must be reset). */
export type GcRaise = { readonly old: string; readonly raised: boolean };

const SELECT_SQL = 'select variable_value from mysql.tidb where variable_name= ?';
const UPDATE_SQL = 'update mysql.tidb set variable_value = ? where variable_name = ?';

/** `validateAndCreateFromDB`: the open connection, or Failed `ConnectTidbFailed` after 30 min of refused pings. */
export function* connectTidb(ctx: TidbAccessContext, pod: KubeObject, container: string, access: TidbAccess, fail: FailWith): Generator<number | Pending<unknown>, GoSqlDb, void> {
  const password = envOf(ctx.store, pod, container, PASSWORD_ENV) ?? '';
  const startedMs = ctx.clock.nowMs();
  const ns = pod.metadata.namespace ?? '';
  const from = { namespace: ns, clientHost: () => String(ctx.store.get('Pod', ns, pod.metadata.name ?? '')?.status?.podIP ?? '') };
  for (;;) {
    try {
      return yield* GoSqlDb.open(ctx.proxy, from, access, password);
    } catch (err) {
      if (!(err instanceof GoSqlError)) throw err;
    }
    if (ctx.clock.nowMs() - startedMs + TIDB_POLL_INTERVAL_MS > TIDB_CHECK_TIMEOUT_MS) return fail('ConnectTidbFailed', 'timed out waiting for the condition');
    yield TIDB_POLL_INTERVAL_MS;
  }
}

/** Reads the GC life time and raises it to `configured` (default 72h) when lower; `id` is `<namespace>/<name>` as v1 prints it. */
export function* raiseGcLifeTime(db: GoSqlDb, id: string, configured: string | undefined, fail: FailWith): Generator<Pending<unknown>, GcRaise, void> {
  let old: string;
  try {
    old = yield* db.queryRow(bind(SELECT_SQL, GC_LIFE_TIME));
  } catch (err) {
    return fail('GetTikvGCLifeTimeFailed', `query cluster ${id} ${GC_LIFE_TIME} failed, sql: ${SELECT_SQL}, err: ${messageOf(err)}`);
  }
  const oldNs = parseOr(old, (m) => fail('ParseOldTikvGCLifeTimeFailed', m));
  const target = configured ?? DEFAULT_TARGET_GC_LIFE_TIME;
  const targetNs = parseOr(target, (m) => fail(configured === undefined ? 'ParseDefaultTikvGCLifeTimeFailed' : 'ParseConfiguredTikvGCLifeTimeFailed', m));
  if (oldNs >= targetNs) return { old, raised: false };
  const error = yield* setGcLifeTime(db, id, target);
  if (error !== undefined) return fail('SetTikvGCLifeTimeFailed', error);
  return { old, raised: true };
}

/** Sets the old value back when it was raised; the Failed `ResetTikvGCLifeTimeFailed` message when that fails. */
export function* resetGcLifeTime(db: GoSqlDb, id: string, raise: GcRaise): Generator<Pending<unknown>, string | undefined, void> {
  if (!raise.raised) return undefined;
  return yield* setGcLifeTime(db, id, raise.old);
}

/** `SetTikvGCLifeTime`: undefined, or v1's error text. */
function* setGcLifeTime(db: GoSqlDb, id: string, value: string): Generator<Pending<unknown>, string | undefined, void> {
  try {
    yield* db.exec(bind(UPDATE_SQL, value, GC_LIFE_TIME));
    return undefined;
  } catch (err) {
    return `set cluster ${id} ${GC_LIFE_TIME} failed, sql: ${UPDATE_SQL}, err: ${messageOf(err)}`;
  }
}

function parseOr(value: string, onError: (message: string) => never): bigint {
  try {
    return parseGoDuration(value);
  } catch (err) {
    if (err instanceof GoDurationError) return onError(err.message);
    throw err;
  }
}

/** The statement with each `?` replaced by a quoted string literal (what the server executes). */
function bind(sql: string, ...values: string[]): string {
  let i = 0;
  return sql.replace(/\?/g, () => `'${(values[i++] ?? '').replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`);
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
