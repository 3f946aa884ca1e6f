/**
 * The Pump nodes of one cluster as binlog registers them in PD's etcd: a node per pod
 * (`<pod>:8250`), online while its process runs, and the offline protocol — `closing` at once
 * when told to go offline, `offline` after `pumpOfflineMs` once it has flushed.
 */
import type { TimerHandle } from '../../platform/clock.js';
import type { PdContext } from './pd-context.js';

/** A Pump node's registered state (binlog's node.State). */
export type PumpState = 'online' | 'pausing' | 'paused' | 'closing' | 'offline';

/** One Pump node. */
export type PumpNode = { readonly nodeId: string; host: string; state: PumpState; alive: boolean; updateMs: number };

/** The Pump nodes of one cluster. */
export class PumpRegistry {
  private readonly nodes = new Map<string, PumpNode>();
  private readonly timers = new Map<string, TimerHandle>();

  constructor(private readonly ctx: PdContext) {}

  /** All nodes ever registered, in registration order. */
  list(): PumpNode[] {
    return [...this.nodes.values()];
  }

  /** A node by ID. */
  get(nodeId: string): PumpNode | undefined {
    return this.nodes.get(nodeId);
  }

  /** A starting Pump registers itself online (a restarted one too: it writes its state on start). */
  register(nodeId: string, host: string): PumpNode {
    const node = this.nodes.get(nodeId) ?? { nodeId, host, state: 'online' as PumpState, alive: true, updateMs: 0 };
    Object.assign(node, { host, state: 'online', alive: true, updateMs: this.ctx.clock.nowMs() });
    this.nodes.set(nodeId, node);
    this.ctx.changed();
    return node;
  }

  /** The process stopped; etcd keeps its last state (a crashed pump still reads `online`). */
  stopped(node: PumpNode): void {
    node.alive = false;
    this.ctx.changed();
  }

  /** Starts going offline: closing now, offline after the flush. */
  offline(node: PumpNode, onOffline: () => void): void {
    if (node.state === 'offline' || node.state === 'closing') return;
    node.state = 'closing';
    node.updateMs = this.ctx.clock.nowMs();
    this.ctx.changed();
    this.timers.set(
      node.nodeId,
      this.ctx.clock.setTimer(() => {
        this.timers.delete(node.nodeId);
        if (node.state !== 'closing') return;
        node.state = 'offline';
        node.updateMs = this.ctx.clock.nowMs();
        onOffline();
        this.ctx.changed();
      }, this.ctx.knobs.pumpOfflineMs),
    );
  }

  /** Cancels pending transitions. */
  stop(): void {
    for (const t of this.timers.values()) this.ctx.clock.clearTimer(t);
    this.timers.clear();
  }
}
