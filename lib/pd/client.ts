/**
 * The PD adapter: `PdPort` over PD's HTTP API, reached through the `<tc>-pd:2379` service (or one
 * member's pod for readiness) by a `ComponentCaller`, which brings the 5 s timeout, the deadline,
 * the ≥ 400 error mapping and the in-call retry of transient failures. Answers are parsed
 * losslessly and ids cross as decimal strings.
 *
 * Every PD write here is sent as idempotent, so the caller repeats it on a transient failure: doing
 * any of them twice has the effect of doing it once (the same labels or replication config set
 * again; leadership asked of the same member again), and where a repeat answers differently the
 * executor (`wiring/execute-pd.ts`) judges by a fresh read, as TiDB Operator does — a member or
 * store deletion repeated after it applied answers 404 and PD no longer lists it; a repeated
 * evict-leader add or remove is judged by PD's scheduler list.
 */
import { type ComponentCaller, componentError } from '../components/caller.js';
import { asArray, asRecord, asString, checkId, idNumber, parseLossless, stringifyLossless } from '../components/json.js';
import type { ComponentRequest, Endpoint } from '../components/transport.js';
import { type RefusalRule, anyRefusal, refusedWith } from '../components/refusal.js';
import { toCluster, toConfig, toEvictLeaderStoreIds, toHealth, toMember, toMembers, toStore } from './parse.js';
import type { PdCluster, PdConfig, PdMember, PdMemberHealth, PdMembers, PdMsMember, PdPort, PdReplicationChange, PdStores } from './port.js';

/** PD's client port. */
export const PD_CLIENT_PORT = 2379;
/** The name PD gives an evict-leader scheduler, before the `-<storeId>` suffix. */
export const EVICT_LEADER_SCHEDULER = 'evict-leader-scheduler';
/** How PD says no store has joined yet (pdapi.go's TiKVNotBootstrappedError). */
const NOT_BOOTSTRAPPED = 'TiKV cluster not bootstrapped';
/** Accepts PD's "not bootstrapped" 500 as an answer; any other 500 stays an error (and is retried). */
const notBootstrapped = (status: number, text: string): boolean => status === 500 && text.includes(NOT_BOOTSTRAPPED);
/** Writes are repeated on transient failures (see the module comment). */
const IDEMPOTENT = { idempotent: true } as const;
/**
 * `DELETE /store/{id}` refusals time lifts (server/api/store.go answers every `RemoveStore` error
 * but "not found" and "removed" with 400): too few Up stores would remain (`ErrStoresNotEnough`)
 * or every other Up store evicts leaders (`ErrNoStoreForRegionLeader`) until stores come back or
 * schedulers end; 410 `ErrStoreRemoved`: the store turned Tombstone meanwhile, which the next
 * step's read of the stores shows. Anything else (a malformed id) stays terminal.
 */
const STORE_DELETE_REFUSALS = anyRefusal(refusedWith(400, 'ErrStoresNotEnough', 'ErrNoStoreForRegionLeader', 'number of up stores'), refusedWith(410));
/** `POST /store/{id}/state` 410: the store turned Tombstone meanwhile; the next step's read of the stores shows it. */
const STORE_STATE_REFUSALS = refusedWith(410);

/** Which cluster's PD: the TidbCluster's namespace and name, and `https` under cluster TLS (http when unset). */
export type PdTarget = { namespace: string; tcName: string; scheme?: 'http' | 'https' };

/** `PdPort` for one TidbCluster. */
export class PdClient implements PdPort {
  constructor(
    private readonly caller: ComponentCaller,
    readonly target: PdTarget,
  ) {}

  /** The same client with every call also ending by `deadlineAtMs` (the invocation's remaining time). */
  withDeadline(deadlineAtMs: number): PdClient {
    return new PdClient(this.caller.withDeadline(deadlineAtMs), this.target);
  }

  /** The `<tc>-pd` service endpoint every call except readiness goes to. */
  serviceEndpoint(): Endpoint {
    return { type: 'service', namespace: this.target.namespace, service: `${this.target.tcName}-pd`, port: PD_CLIENT_PORT, ...this.scheme() };
  }

  /** One member's pod endpoint, under the `<tc>-pd-peer` headless service. */
  memberEndpoint(podName: string): Endpoint {
    return { type: 'pod', namespace: this.target.namespace, pod: podName, subdomain: `${this.target.tcName}-pd-peer`, port: PD_CLIENT_PORT, ...this.scheme() };
  }

  private scheme(): Pick<Endpoint, 'scheme'> {
    return this.target.scheme === 'https' ? { scheme: 'https' } : {};
  }

  async getMembers(): Promise<PdMembers> {
    return toMembers(await this.get('/pd/api/v1/members', 'PD get members'));
  }

  async getHealth(): Promise<PdMemberHealth[]> {
    return toHealth(await this.get('/pd/api/v1/health', 'PD get health'));
  }

  async getCluster(): Promise<PdCluster> {
    return toCluster(await this.get('/pd/api/v1/cluster', 'PD get cluster'));
  }

  async getLeader(): Promise<PdMember> {
    return toMember(await this.get('/pd/api/v1/leader', 'PD get leader'));
  }

  async transferLeader(memberName: string): Promise<void> {
    await this.send({ method: 'POST', path: `/pd/api/v1/leader/transfer/${encodeURIComponent(memberName)}` }, `PD transfer leader to ${memberName}`);
  }

  async deleteMemberByName(memberName: string): Promise<void> {
    await this.send({ method: 'DELETE', path: `/pd/api/v1/members/name/${encodeURIComponent(memberName)}` }, `PD delete member ${memberName}`);
  }

  async deleteMemberById(memberId: string): Promise<void> {
    const what = `PD delete member id ${memberId}`;
    await this.send({ method: 'DELETE', path: `/pd/api/v1/members/id/${checkId(memberId, what)}` }, what);
  }

  async getStores(): Promise<PdStores> {
    return this.stores(undefined, 'PD get stores');
  }

  async getTombstoneStores(): Promise<PdStores> {
    return this.stores({ state: '2' }, 'PD get tombstone stores');
  }

  async deleteStore(storeId: string): Promise<void> {
    const what = `PD delete store ${storeId}`;
    await this.send({ method: 'DELETE', path: `/pd/api/v1/store/${checkId(storeId, what)}` }, what, STORE_DELETE_REFUSALS);
  }

  async setStoreState(storeId: string, state: 'Up'): Promise<void> {
    const what = `PD set store ${storeId} ${state}`;
    await this.send({ method: 'POST', path: `/pd/api/v1/store/${checkId(storeId, what)}/state`, query: { state } }, what, STORE_STATE_REFUSALS);
  }

  async setStoreLabels(storeId: string, labels: Record<string, string>): Promise<void> {
    const what = `PD set labels of store ${storeId}`;
    await this.send({ method: 'POST', path: `/pd/api/v1/store/${checkId(storeId, what)}/label`, body: JSON.stringify(labels) }, what);
  }

  async getConfig(): Promise<PdConfig> {
    return toConfig(await this.get('/pd/api/v1/config', 'PD get config'));
  }

  async setReplicationConfig(change: PdReplicationChange): Promise<void> {
    // As TiDB Operator: location labels as one comma string, placement rules as a "true"/"false" string.
    const body = {
      ...(change.maxReplicas !== undefined ? { 'max-replicas': change.maxReplicas } : {}),
      ...(change.locationLabels !== undefined ? { 'location-labels': change.locationLabels.join(',') } : {}),
      ...(change.enablePlacementRules !== undefined ? { 'enable-placement-rules': String(change.enablePlacementRules) } : {}),
    };
    await this.send({ method: 'POST', path: '/pd/api/v1/config/replicate', body: JSON.stringify(body) }, 'PD update replication config');
  }

  async beginEvictLeader(storeId: string): Promise<void> {
    const what = `PD begin evict leader of store ${storeId}`;
    const body = stringifyLossless({ name: EVICT_LEADER_SCHEDULER, store_id: idNumber(storeId, what) });
    await this.send({ method: 'POST', path: '/pd/api/v1/schedulers', body }, what);
  }

  async endEvictLeader(storeId: string): Promise<void> {
    const what = `PD end evict leader of store ${storeId}`;
    await this.send({ method: 'DELETE', path: `/pd/api/v1/schedulers/${EVICT_LEADER_SCHEDULER}-${checkId(storeId, what)}` }, what);
  }

  async getEvictLeaderSchedulers(): Promise<string[]> {
    const what = 'PD get schedulers';
    const answer = await this.caller.call(this.serviceEndpoint(), { method: 'GET', path: '/pd/api/v1/schedulers' }, what, notBootstrapped);
    if (answer.status >= 400) {
      // A PD without TiKV ("not bootstrapped") has no scheduler at all: a state, not an error.
      if (answer.text.includes(NOT_BOOTSTRAPPED)) return [];
      throw componentError(what, answer.status, answer.text);
    }
    const names = asArray(parseLossless(answer.text, what)).map(asString);
    const evicting = names.filter((n) => n.startsWith(EVICT_LEADER_SCHEDULER));
    if (evicting.length !== 1 || evicting[0] !== EVICT_LEADER_SCHEDULER) return evicting;
    // PD ≥ 3.1 reports one merged scheduler; its config lists the stores (as TiDB Operator).
    const config = await this.get(`/pd/api/v1/scheduler-config/${EVICT_LEADER_SCHEDULER}/list`, 'PD get evict-leader config');
    return toEvictLeaderStoreIds(config).map((id) => `${EVICT_LEADER_SCHEDULER}-${id}`);
  }

  async isMemberReady(podName: string): Promise<boolean> {
    const answer = await this.caller.call(this.memberEndpoint(podName), { method: 'GET', path: '/pd/api/v2/ready' }, `PD ready of ${podName}`, (status) => status === 404);
    return answer.status < 400 || answer.status === 404;
  }

  async getMsMembers(service: string): Promise<PdMsMember[]> {
    const what = `PD get ${service} members`;
    const answer = await this.get(`/pd/api/v2/ms/members/${encodeURIComponent(service)}`, what);
    // PD answers Go's nil slice, `null`, while no server is registered.
    const entries = answer === null ? [] : asArray(answer);
    return entries.map((e) => {
      const entry = asRecord(e);
      return { name: entry.name === undefined ? '' : asString(entry.name), serviceAddr: asString(entry['service-addr']) };
    });
  }

  async getMsPrimary(service: string): Promise<string> {
    return asString(await this.get(`/pd/api/v2/ms/primary/${encodeURIComponent(service)}`, `PD get ${service} primary`));
  }

  async transferMsPrimary(service: string, newPrimary: string): Promise<void> {
    const endpoint: Endpoint = { type: 'service', namespace: this.target.namespace, service: `${this.target.tcName}-${service}`, port: PD_CLIENT_PORT, ...this.scheme() };
    const req: ComponentRequest = { method: 'POST', path: `/${encodeURIComponent(service)}/api/v1/primary/transfer`, body: JSON.stringify({ new_primary: newPrimary }) };
    await this.caller.call(endpoint, req, `${service} transfer primary to ${newPrimary}`, undefined, IDEMPOTENT);
  }

  private async stores(query: Record<string, string> | undefined, what: string): Promise<PdStores> {
    const req: ComponentRequest = { method: 'GET', path: '/pd/api/v1/stores', ...(query ? { query } : {}) };
    const answer = await this.caller.call(this.serviceEndpoint(), req, what, notBootstrapped);
    if (answer.status >= 400) {
      if (answer.text.includes(NOT_BOOTSTRAPPED)) return { stores: [], bootstrapped: false };
      throw componentError(what, answer.status, answer.text);
    }
    return { stores: asArray(asRecord(parseLossless(answer.text, what)).stores).map(toStore), bootstrapped: true };
  }

  private async get(path: string, what: string, query?: Record<string, string>): Promise<unknown> {
    return this.caller.json(this.serviceEndpoint(), { method: 'GET', path, ...(query ? { query } : {}) }, what);
  }

  private async send(req: ComponentRequest, what: string, temporary?: RefusalRule): Promise<void> {
    await this.caller.call(this.serviceEndpoint(), req, what, undefined, temporary ? { ...IDEMPOTENT, temporary } : IDEMPOTENT);
  }
}
