/**
 * The TiCDC captures of one cluster as they register in PD's etcd: a fresh capture ID per process
 * start, owner election (the earliest live capture campaigns first), owner resignation, and
 * draining, where a capture's table count falls to zero over `ticdcDrainMs` as its tables move to
 * the other captures.
 */
import type { PdContext, PdResult } from './pd-context.js';
import { refuse } from './pd-context.js';

/** One TiCDC capture (one process lifetime). */
export type Capture = {
  readonly id: string;
  readonly podName: string;
  readonly address: string;
  readonly version: string;
  alive: boolean;
  tables: number;
  drain: { startMs: number; startTables: number } | undefined;
};

/** A capture stopping: the tables it still held and how many other captures were alive to take them. */
export type CaptureStop = { readonly capture: Capture; readonly tables: number; readonly othersAlive: number };

/** Captures, owner and drains of one cluster. */
export class CaptureRegistry {
  private readonly captures: Capture[] = [];
  private ownerId: string | undefined;
  private readonly stopListeners = new Set<(stop: CaptureStop) => void>();

  constructor(private readonly ctx: PdContext) {}

  /** Live captures in registration order. */
  alive(): Capture[] {
    return this.captures.filter((c) => c.alive);
  }

  /** The owner, if one is elected. */
  owner(): Capture | undefined {
    return this.captures.find((c) => c.id === this.ownerId && c.alive);
  }

  /** A capture by ID. */
  get(id: string): Capture | undefined {
    return this.captures.find((c) => c.id === id);
  }

  /** A starting process registers a new capture; the first one becomes owner. */
  register(podName: string, address: string, version: string): Capture {
    const capture: Capture = { id: this.ctx.rng.uuid(), podName, address, version, alive: true, tables: this.ctx.knobs.ticdcTablesPerCapture, drain: undefined };
    this.captures.push(capture);
    this.elect();
    this.ctx.changed();
    return capture;
  }

  /** The process stopped: its session lapses and its tables go to the others. */
  unregister(capture: Capture): void {
    if (!capture.alive) return;
    const stop: CaptureStop = { capture, tables: this.tableCount(capture), othersAlive: this.alive().length - 1 };
    for (const listener of this.stopListeners) listener(stop);
    capture.alive = false;
    this.spread(this.tableCount(capture), capture);
    capture.tables = 0;
    if (this.ownerId === capture.id) this.ownerId = undefined;
    this.elect();
    this.ctx.changed();
  }

  /** Calls `listener` as each capture stops (before its tables move); returns the unsubscribe. */
  onStop(listener: (stop: CaptureStop) => void): () => void {
    this.stopListeners.add(listener);
    return () => this.stopListeners.delete(listener);
  }

  /**
   * `POST /api/v1/owner/resign` (the owner's `AsyncStop`): the owner steps down and another live
   * capture wins the campaign at once. With no other capture TiCDC has no owner until the same
   * capture campaigns again (its campaigns are rate-limited): that capture is answered, and whoever
   * runs it calls `campaign` after `ticdcCampaignMs`. Nothing happens without an owner.
   */
  resignOwner(): Capture | undefined {
    const old = this.owner();
    if (!old) return undefined;
    const next = this.alive().find((c) => c !== old);
    this.ownerId = next?.id;
    this.ctx.changed();
    return next ? undefined : old;
  }

  /** `capture` campaigns for the ownership: it wins while it is alive and TiCDC has no owner. */
  campaign(capture: Capture): void {
    if (this.owner() || !capture.alive) return;
    this.ownerId = capture.id;
    this.ctx.changed();
  }

  /**
   * The owner moves to the live capture of `podName`, as an administrator gets by resigning the owner
   * until that capture wins; throws when the pod has no live capture.
   */
  moveOwner(podName: string): void {
    const target = this.alive().find((c) => c.podName === podName);
    if (!target) throw new Error(`TiCDC pod ${podName} has no live capture to become the owner`);
    this.ownerId = target.id;
    this.ctx.changed();
  }

  /**
   * `PUT /api/v1/captures/drain`. As TiCDC: refused with 400 with one capture alive, for the owner and for an unknown capture
   * (tiflow cdc/api/v1/api_test.go `TestDrainCapture` asserts the three 400s); answers the capture's current table count.
   */
  drain(captureId: string): PdResult<number> {
    const live = this.alive();
    if (live.length <= 1) return refuse(400, '[CDC:ErrSchedulerRequestFailed]scheduler request failed: only one capture alive');
    const target = live.find((c) => c.id === captureId);
    if (!target) return refuse(400, `[CDC:ErrCaptureNotExist]capture not exists, ${captureId}`);
    if (target.id === this.ownerId) return refuse(400, '[CDC:ErrSchedulerRequestFailed]scheduler request failed: cannot drain the owner');
    if (!target.drain) target.drain = { startMs: this.ctx.clock.nowMs(), startTables: target.tables };
    return { ok: this.tableCount(target) };
  }

  /** Tables a capture replicates now (falling linearly while it drains). */
  tableCount(capture: Capture): number {
    if (!capture.drain) return capture.tables;
    const elapsed = this.ctx.clock.nowMs() - capture.drain.startMs;
    const left = capture.drain.startTables * (1 - elapsed / Math.max(1, this.ctx.knobs.ticdcDrainMs));
    return Math.max(0, Math.ceil(left));
  }

  private elect(): void {
    if (this.owner()) return;
    this.ownerId = this.alive()[0]?.id;
  }

  private spread(tables: number, from: Capture): void {
    const others = this.alive().filter((c) => c !== from && !c.drain);
    others.forEach((c, i) => (c.tables += Math.floor(tables / others.length) + (i < tables % others.length ? 1 : 0)));
  }
}
