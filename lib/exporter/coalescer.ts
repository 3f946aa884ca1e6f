/**
 * Burst coalescing. Between two flushes every trigger for a key collapses into one pending entry,
 * so a rolling restart that changes fifty Pods of one cluster sends one message per flush window,
 * not fifty. The reconcile step is level-based (docs/ARCHITECTURE.md, One step): it reads the whole cluster, so one
 * message carries all it needs; the reasons are kept only for logs and history.
 */

/** How many distinct reasons a message lists before summarising the rest as a count. */
export const MAX_REASONS = 3;
/** Each listed reason is cut to this many characters, so a message body stays small. */
const MAX_REASON_CHARS = 120;

/**
 * One key's pending trigger: its first few distinct reasons, how many triggers there were, and
 * whether any of them asks for the TiDB Operator verdict to be re-checked (`checkTidbOperator`).
 */
export type PendingTrigger = { key: string; reasons: string[]; count: number; checkTidbOperator?: true };

/** Pending triggers by key, in first-arrival order. */
export class Coalescer {
  private pending = new Map<string, PendingTrigger>();

  /** Adds a trigger for `key`; a repeated reason is counted but listed once; a re-check asked is never lost. */
  add(key: string, reason: string, checkTidbOperator = false): void {
    const entry = this.pending.get(key) ?? { key, reasons: [], count: 0 };
    entry.count += 1;
    if (checkTidbOperator) entry.checkTidbOperator = true;
    const cut = reason.length > MAX_REASON_CHARS ? `${reason.slice(0, MAX_REASON_CHARS - 1)}…` : reason;
    if (entry.reasons.length < MAX_REASONS && !entry.reasons.includes(cut)) entry.reasons.push(cut);
    this.pending.set(key, entry);
  }

  /** The number of keys waiting. */
  size(): number {
    return this.pending.size;
  }

  /** Takes every pending trigger, leaving none. */
  take(): PendingTrigger[] {
    const taken = [...this.pending.values()];
    this.pending = new Map();
    return taken;
  }

  /**
   * Puts triggers back after a failed send, merged with whatever arrived meanwhile (the older
   * reasons first), so nothing taken is lost.
   */
  restore(triggers: readonly PendingTrigger[]): void {
    const newer = this.pending;
    this.pending = new Map(triggers.map((t) => [t.key, { ...t, reasons: [...t.reasons] }]));
    for (const t of newer.values()) {
      const entry = this.pending.get(t.key) ?? { key: t.key, reasons: [], count: 0 };
      entry.count += t.count;
      if (t.checkTidbOperator === true) entry.checkTidbOperator = true;
      for (const r of t.reasons) if (entry.reasons.length < MAX_REASONS && !entry.reasons.includes(r)) entry.reasons.push(r);
      this.pending.set(t.key, entry);
    }
  }
}

/** The message reason: the listed reasons, then `(+N more)` when there were more triggers. */
export function reasonText(trigger: PendingTrigger): string {
  const more = trigger.count - trigger.reasons.length;
  const listed = trigger.reasons.join('; ');
  return more > 0 ? `${listed} (+${more} more)` : listed;
}
