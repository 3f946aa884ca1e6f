/**
 * PD microservices as PD's etcd holds them (tikv/pd `pkg/mcs/discovery`, `pkg/mcs/utils/
 * expected_primary.go`; docs/reference/pd-microservices.md §5): each tso / scheduling server
 * registers an entry (name, `service-addr`, version, start time) under its service while it lives,
 * campaigns for the service's one primary, and leaves when it stops (its lease lapses). A primary
 * transfer revokes the current primary and marks the named server as the expected primary: only it
 * may take the primary until it has. PD in API mode reads this registry for
 * `/pd/api/v2/ms/{members,primary}/<svc>` and forwards timestamp requests to the tso primary.
 */
import { type PdResult, refuse } from './pd-context.js';

/** One registered server (PD's `ServiceRegistryEntry`). */
export type MsEntry = { readonly name: string; readonly serviceAddr: string; readonly version: string; readonly startTimestamp: number };

type ServiceState = { readonly entries: Map<string, MsEntry>; primary: string | undefined; expected: string | undefined };

/** The registries of one PD cluster's microservices. */
export class PdMicroservices {
  private readonly services = new Map<string, ServiceState>();

  constructor(private readonly changed: () => void) {}

  private state(service: string): ServiceState {
    let found = this.services.get(service);
    if (!found) {
      found = { entries: new Map(), primary: undefined, expected: undefined };
      this.services.set(service, found);
    }
    return found;
  }

  /** Registers (or re-registers) a server under `service`. */
  register(service: string, entry: MsEntry): void {
    this.state(service).entries.set(entry.name, entry);
    this.changed();
  }

  /** A stopped server: its entry goes, and so does its primary role. */
  leave(service: string, name: string): void {
    const s = this.state(service);
    s.entries.delete(name);
    if (s.primary === name) s.primary = undefined;
    this.changed();
  }

  /**
   * A registered server's campaign: it becomes primary when there is none and no other server is
   * the expected primary of a transfer. True when it is primary afterwards.
   */
  campaign(service: string, name: string): boolean {
    const s = this.state(service);
    if (!s.entries.has(name)) return false;
    if (s.primary !== undefined) return s.primary === name;
    if (s.expected !== undefined && s.expected !== name && s.entries.has(s.expected)) return false;
    s.primary = name;
    s.expected = undefined;
    this.changed();
    return true;
  }

  /** The registered servers of `service`, in registration order. */
  members(service: string): MsEntry[] {
    return [...this.state(service).entries.values()];
  }

  /** The primary's entry, if `service` has one. */
  primary(service: string): MsEntry | undefined {
    const s = this.state(service);
    return s.primary === undefined ? undefined : s.entries.get(s.primary);
  }

  /**
   * As PD's `TransferPrimary` (asked of the current primary): refused when the service has one
   * server only, or none named `newPrimary` (an empty name: any other server); otherwise the primary
   * steps down and the chosen server is the expected one.
   */
  transfer(service: string, newPrimary: string): PdResult {
    const s = this.state(service);
    const entries = [...s.entries.values()];
    if (entries.length === 1) return refuse(500, `no valid secondary to transfer primary, the only member is ${entries[0]?.name ?? ''}`);
    const candidates = entries.filter((e) => (newPrimary === '' ? e.name !== s.primary : e.name === newPrimary));
    const chosen = candidates[0];
    if (chosen === undefined) return refuse(500, `no valid secondary to transfer primary, from ${s.primary ?? ''} to ${newPrimary}`);
    s.primary = undefined;
    s.expected = chosen.name;
    this.changed();
    return { ok: true };
  }
}
