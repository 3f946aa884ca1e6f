import { describe, it, expect } from '@jest/globals';

import type { PdAction } from '../../../lib/wiring/execute-pd.js';
import type { PdConfig, PdMember, PdMemberHealth, PdMembers, PdPort, PdReplicationChange, PdStore, PdStores } from '../../../lib/pd/port.js';
import { NotFoundError, TerminalError, TransientError } from '../../../lib/platform/errors.js';
import { withinBudget } from '../../../lib/wiring/abortable.js';
import { executeKube } from '../../../lib/wiring/execute-kube.js';
import { executePd } from '../../../lib/wiring/execute-pd.js';
import { lambdaSettings } from '../../../lib/wiring/lambda-env.js';
import { componentError } from '../../../lib/components/caller.js';
import { pdReadFailureOf, toPdView, type PdAnswers } from '../../../lib/wiring/pd-view.js';
import { FakeKube } from './runtime-fakes.js';

const member = (name: string, memberId: string): PdMember => ({ name, memberId, peerUrls: [], clientUrls: [] });

const apiStore = (id: string, stateName: string, labels: { key: string; value: string }[] = []): PdStore => ({
  id,
  address: `basic-tikv-${id}:20160`,
  stateName,
  labels,
  version: '8.5.0',
  leaderCount: 1,
  regionCount: 2,
  capacity: '10GiB',
  available: '5GiB',
  lastHeartbeatTs: '2026-01-01T00:00:00.123456789Z',
});

/** A PD holding members, stores and evict-leader schedulers; `answers` scripts the writes' errors. */
class FakePd implements PdPort {
  readonly calls: string[] = [];
  readonly answers = new Map<string, Error>();
  constructor(
    public members: PdMember[] = [member('basic-pd-0', '18446744073709551615')],
    public stores: PdStore[] = [apiStore('1', 'Up')],
    public evicting: string[] = [],
  ) {}

  private async write(call: string, effect: () => void = () => undefined): Promise<void> {
    this.calls.push(call);
    const error = this.answers.get(call.split(' ')[0] ?? call);
    if (error) throw error;
    effect();
  }

  getMembers = async (): Promise<PdMembers> => ({ members: this.members });
  getHealth = async (): Promise<PdMemberHealth[]> => [];
  getCluster = async () => ({ id: '1', maxPeerCount: 3 });
  getLeader = async (): Promise<PdMember> => member('basic-pd-0', '1');
  getStores = async (): Promise<PdStores> => ({ stores: this.stores, bootstrapped: true });
  getTombstoneStores = async (): Promise<PdStores> => ({ stores: [], bootstrapped: true });
  getConfig = async (): Promise<PdConfig> => ({ replication: { maxReplicas: 3, locationLabels: [], enablePlacementRules: true } });
  getEvictLeaderSchedulers = async (): Promise<string[]> => this.evicting.map((id) => `evict-leader-scheduler-${id}`);
  isMemberReady = async () => true;
  getMsMembers = async () => [];
  getMsPrimary = async () => '';
  transferMsPrimary = (service: string, to: string) => this.write(`transferMsPrimary ${service} ${to}`);
  transferLeader = (name: string) => this.write(`transferLeader ${name}`);
  deleteMemberByName = (name: string) => this.write(`deleteMember ${name}`, () => (this.members = this.members.filter((m) => m.name !== name)));
  deleteMemberById = (id: string) => this.write(`deleteMember ${id}`, () => (this.members = this.members.filter((m) => m.memberId !== id)));
  deleteStore = (id: string) => this.write(`deleteStore ${id}`);
  setStoreState = (id: string) => this.write(`setStoreState ${id}`);
  setStoreLabels = (id: string) => this.write(`setStoreLabels ${id}`);
  setReplicationConfig = (change: PdReplicationChange) => this.write(`setReplicationConfig ${JSON.stringify(change)}`);
  beginEvictLeader = (id: string) => this.write(`beginEvictLeader ${id}`, () => void this.evicting.push(id));
  endEvictLeader = (id: string) => this.write(`endEvictLeader ${id}`, () => (this.evicting = this.evicting.filter((e) => e !== id)));
}

const notFound = () => new NotFoundError('HTTP 404: not found');

/** A PD whose member delete answers 404 although it did remove the member (a lost answer, retried). */
function goneWith404(): FakePd {
  const fake = new FakePd();
  fake.deleteMemberByName = async (name) => {
    fake.calls.push(`deleteMember ${name}`);
    fake.members = [];
    throw notFound();
  };
  return fake;
}

describe('PD actions are idempotent or verified', () => {
  it.each([
    { name: 'a member PD no longer lists is deleted without a call', pd: () => new FakePd([]), action: { kind: 'pd.deleteMember', name: 'basic-pd-0' }, calls: [], settles: 'resolves' },
    { name: 'a member is deleted by its exact uint64 id', pd: () => new FakePd(), action: { kind: 'pd.deleteMember', id: '18446744073709551615' }, calls: ['deleteMember 18446744073709551615'], settles: 'resolves' },
    { name: 'a 404 on deleting a member PD still lists is a failure', pd: () => Object.assign(new FakePd(), { answers: new Map([['deleteMember', notFound()]]) }), action: { kind: 'pd.deleteMember', name: 'basic-pd-0' }, calls: ['deleteMember basic-pd-0'], settles: 'rejects' },
    { name: 'a 404 on deleting a member is success once a fresh read shows PD no longer lists it', pd: () => goneWith404(), action: { kind: 'pd.deleteMember', name: 'basic-pd-0' }, calls: ['deleteMember basic-pd-0'], settles: 'resolves' },
    { name: 'a leader transfer answered 404 ends the call, as TiDB Operator', pd: () => Object.assign(new FakePd(), { answers: new Map([['transferLeader', notFound()]]) }), action: { kind: 'pd.transferLeader', to: 'basic-pd-1' }, calls: ['transferLeader basic-pd-1'], settles: 'resolves' },
  ] as { name: string; pd: () => FakePd; action: PdAction; calls: string[]; settles: 'resolves' | 'rejects' }[])('$name', async ({ pd, action, calls, settles }) => {
    // Prepare
    const fake = pd();

    // Act
    const run = executePd(fake, action);

    // Assess
    if (settles === 'resolves') await expect(run).resolves.toBeUndefined();
    else await expect(run).rejects.toBeInstanceOf(NotFoundError);
    expect(fake.calls).toEqual(calls);
  });
});

/** A PD whose delete by id answers etcd's 500 "member not found"; `removes` says whether it did remove it first (a lost answer). */
function memberNotFound500(removes: boolean): FakePd {
  const fake = new FakePd();
  fake.deleteMemberById = async (id) => {
    fake.calls.push(`deleteMember ${id}`);
    if (removes) fake.members = [];
    throw componentError(`PD delete member id ${id}`, 500, '"etcdserver: member not found"');
  };
  return fake;
}

/** A PD listing store 1 Offline whose state=Up answers 410: the store became Tombstone since the read. */
function tombstonedSinceRead(): FakePd {
  const fake = new FakePd(undefined, [apiStore('1', 'Offline')]);
  fake.setStoreState = async (id) => {
    fake.calls.push(`setStoreState ${id}`);
    throw componentError(`PD set store ${id} Up`, 410, '"[PD:core:ErrStoreRemoved]store 1 has been removed"');
  };
  return fake;
}

describe('PD answers a call must read as PD means them', () => {
  it.each([
    { name: 'a 500 "member not found" on deleting by id is done once a fresh read shows PD no longer lists it', pd: () => memberNotFound500(true), action: { kind: 'pd.deleteMember', id: '18446744073709551615' }, error: undefined },
    { name: 'a 500 on deleting by id a member PD still lists is a failure to retry', pd: () => memberNotFound500(false), action: { kind: 'pd.deleteMember', id: '18446744073709551615' }, error: TransientError },
    { name: 'a 410 on setting Up a store that became Tombstone since the read is the temporary "not live" failure', pd: tombstonedSinceRead, action: { kind: 'pd.setStoreState', storeId: '1', state: 'Up' }, error: TransientError },
  ] as { name: string; pd: () => FakePd; action: PdAction; error: (new (...args: never[]) => Error) | undefined }[])('$name', async ({ pd, action, error }) => {
    // Prepare
    const fake = pd();

    // Act
    const run = executePd(fake, action);

    // Assess
    if (error === undefined) await expect(run).resolves.toBeUndefined();
    else await expect(run).rejects.toBeInstanceOf(error);
    expect(fake.calls).toHaveLength(1);
  });
});

/** A PD whose evict-leader DELETE answers 200 but leaves the scheduler in place. */
function keepsScheduler(): FakePd {
  const fake = new FakePd(undefined, undefined, ['1']);
  fake.endEvictLeader = async (id) => void fake.calls.push(`endEvictLeader ${id}`);
  return fake;
}

const failing = (call: string, error: Error, evicting: string[] = []): (() => FakePd) => () =>
  Object.assign(new FakePd(undefined, undefined, evicting), { answers: new Map([[call, error]]) });

const unavailable = () => new TransientError('HTTP 500: scheduler existed');

describe('PD store actions are idempotent or verified', () => {
  it.each([
    { name: 'a live store is deleted', pd: () => new FakePd(), action: { kind: 'pd.deleteStore', storeId: '1' }, calls: ['deleteStore 1'], error: undefined },
    { name: 'a store PD no longer lists as live (gone or Tombstone) is deleted without a call', pd: () => new FakePd(undefined, []), action: { kind: 'pd.deleteStore', storeId: '1' }, calls: [], error: undefined },
    { name: 'a store delete answered 404 is done, as TiDB Operator', pd: failing('deleteStore', notFound()), action: { kind: 'pd.deleteStore', storeId: '1' }, calls: ['deleteStore 1'], error: undefined },
    { name: 'a store delete PD refuses fails', pd: failing('deleteStore', unavailable()), action: { kind: 'pd.deleteStore', storeId: '1' }, calls: ['deleteStore 1'], error: TransientError },
    { name: 'an evict-leader scheduler is added', pd: () => new FakePd(), action: { kind: 'pd.beginEvictLeader', storeId: '1' }, calls: ['beginEvictLeader 1'], error: undefined },
    { name: 'a refused add is done when PD lists the scheduler ("scheduler existed")', pd: failing('beginEvictLeader', unavailable(), ['1']), action: { kind: 'pd.beginEvictLeader', storeId: '1' }, calls: ['beginEvictLeader 1'], error: undefined },
    { name: 'a refused add PD does not list fails', pd: failing('beginEvictLeader', unavailable()), action: { kind: 'pd.beginEvictLeader', storeId: '1' }, calls: ['beginEvictLeader 1'], error: TransientError },
    { name: 'an evict-leader scheduler is removed', pd: () => new FakePd(undefined, undefined, ['1']), action: { kind: 'pd.endEvictLeader', storeId: '1' }, calls: ['endEvictLeader 1'], error: undefined },
    { name: 'a removal answered 404 is done', pd: failing('endEvictLeader', notFound()), action: { kind: 'pd.endEvictLeader', storeId: '1' }, calls: ['endEvictLeader 1'], error: undefined },
    { name: 'a refused removal is done when PD no longer lists the scheduler', pd: failing('endEvictLeader', unavailable()), action: { kind: 'pd.endEvictLeader', storeId: '1' }, calls: ['endEvictLeader 1'], error: undefined },
    { name: 'a refused removal PD still lists fails with the refusal', pd: failing('endEvictLeader', unavailable(), ['1']), action: { kind: 'pd.endEvictLeader', storeId: '1' }, calls: ['endEvictLeader 1'], error: TransientError },
    { name: 'a removal answered 200 fails while PD still lists the scheduler', pd: keepsScheduler, action: { kind: 'pd.endEvictLeader', storeId: '1' }, calls: ['endEvictLeader 1'], error: TransientError },
    { name: 'store labels are posted', pd: () => new FakePd(), action: { kind: 'pd.setStoreLabels', storeId: '1', labels: { zone: 'a' } }, calls: ['setStoreLabels 1'], error: undefined },
    { name: 'a refused store label post fails', pd: failing('setStoreLabels', unavailable()), action: { kind: 'pd.setStoreLabels', storeId: '1', labels: { zone: 'a' } }, calls: ['setStoreLabels 1'], error: TransientError },
    { name: 'an Offline store is set Up again (its removal cancelled)', pd: () => new FakePd(undefined, [apiStore('1', 'Offline')]), action: { kind: 'pd.setStoreState', storeId: '1', state: 'Up' }, calls: ['setStoreState 1'], error: undefined },
    { name: 'a store already Up is done without a call', pd: () => new FakePd(), action: { kind: 'pd.setStoreState', storeId: '1', state: 'Up' }, calls: [], error: undefined },
    { name: 'a store PD no longer lists as live (Tombstone) cannot be set Up: fails without a call', pd: () => new FakePd(undefined, []), action: { kind: 'pd.setStoreState', storeId: '1', state: 'Up' }, calls: [], error: TransientError },
    { name: 'a replication change posts only the fields it sets', pd: () => new FakePd(), action: { kind: 'pd.setReplication', change: { enablePlacementRules: true } }, calls: ['setReplicationConfig {"enablePlacementRules":true}'], error: undefined },
  ] as { name: string; pd: () => FakePd; action: PdAction; calls: string[]; error: (new (...args: never[]) => Error) | undefined }[])('$name', async ({ pd, action, calls, error }) => {
    // Prepare
    const fake = pd();

    // Act
    const run = executePd(fake, action);

    // Assess
    if (error === undefined) await expect(run).resolves.toBeUndefined();
    else await expect(run).rejects.toBeInstanceOf(error);
    expect(fake.calls).toEqual(calls);
  });
});

describe('Kubernetes writes carry a precondition or are refused', () => {
  it.each([
    { name: 'a JSON patch is refused, naming patchType', action: { kind: 'patch', ref: { kind: 'Pod', namespace: 'demo', name: 'p' }, patchType: 'json', patch: [], resourceVersion: '5' }, field: 'patchType' },
    { name: 'a PersistentVolume delete is refused, naming kind (volumes are only patched)', action: { kind: 'delete', ref: { kind: 'PersistentVolume', namespace: 'demo', name: 'pv' }, uid: 'u' }, field: 'kind' },
    { name: 'a create whose object is another kind than its ref is refused, naming kind', action: { kind: 'create', ref: { kind: 'Service', namespace: 'demo', name: 's' }, object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 's' } } }, field: 'kind' },
    { name: 'a create whose object is another name than its ref is refused, naming metadata.name', action: { kind: 'create', ref: { kind: 'Service', namespace: 'demo', name: 's' }, object: { apiVersion: 'v1', kind: 'Service', metadata: { name: 't' } } }, field: 'metadata.name' },
  ] as const)('$name', async ({ action, field }) => {
    // Act
    const run = executeKube(new FakeKube(), action);

    // Assess
    await expect(run).rejects.toEqual(expect.objectContaining({ constructor: TerminalError, field }));
  });
});

describe('PD answers become the snapshot view', () => {
  const answers = (stores: PdStore[], tombstones: PdStore[]): PdAnswers => ({
    members: { members: [member('basic-pd-0', '18446744073709551615')], leader: member('basic-pd-0', '18446744073709551615') },
    health: [{ name: 'basic-pd-0', memberId: '18446744073709551615', clientUrls: [], health: true }],
    storeAnswers: {
      stores,
      bootstrapped: true,
      tombstones,
      config: { replication: { maxReplicas: 3, locationLabels: ['zone', 'host'], enablePlacementRules: true } },
      evictLeaderSchedulers: ['evict-leader-scheduler-4'],
    },
    clusterId: '7000000000000000123',
  });

  it('store labels become a record, Tombstones join the stores once, and ids stay exact', () => {
    // Act
    const view = toPdView(answers([apiStore('4', 'Up', [{ key: 'zone', value: 'a' }, { key: 'host', value: 'h4' }])], [apiStore('5', 'Tombstone'), apiStore('4', 'Up')]));

    // Assess
    expect(view.stores.map((s) => [s.id, s.state, s.labels])).toEqual([['4', 'Up', { zone: 'a', host: 'h4' }], ['5', 'Tombstone', {}]]);
    expect(view.members).toEqual([{ name: 'basic-pd-0', id: '18446744073709551615', clientUrls: [], peerUrls: [], health: true }]);
    expect(view.leader).toEqual({ name: 'basic-pd-0', id: '18446744073709551615' });
    expect(view.stores[0]?.lastHeartbeatAtMs).toBe(Date.UTC(2026, 0, 1, 0, 0, 0, 123));
  });

  it('a store state PD never defined is refused rather than guessed', () => {
    // Act
    const build = () => toPdView(answers([apiStore('4', 'Sleeping')], []));

    // Assess
    expect(build).toThrow(TransientError);
  });

  it.each([
    { name: 'PD answers 503 "no leader" (its redirector without a leader)', err: componentError('PD get members', 503, 'no leader'), kind: 'noLeader' },
    { name: 'newer PD: "redirect finds no leader"', err: componentError('PD get health', 503, '[PD:apiutil:ErrRedirectNoLeader]redirect finds no leader'), kind: 'noLeader' },
    {
      name: "the API server's own 503 (no endpoints) is unreachable",
      err: componentError('PD get members', 503, '{"kind":"Status","apiVersion":"v1","status":"Failure","message":"no endpoints available for service \\"basic-pd\\"","code":503}'),
      kind: 'unreachable',
    },
    { name: 'another status is unreachable', err: componentError('PD get members', 500, 'no leader'), kind: 'unreachable' },
    { name: 'no answer at all is unreachable', err: new TransientError('connect ECONNREFUSED'), kind: 'unreachable' },
    { name: 'the proxy refused by PD’s TLS handshake is clientRefused', err: componentError('PD get members', 503, '{"kind":"Status","message":"error trying to reach service: remote error: tls: certificate required"}'), kind: 'clientRefused' },
  ])('a PD read failure is classified: $name', ({ err, kind }) => {
    // Act / Assess
    expect(pdReadFailureOf(err)).toBe(kind);
  });
});

describe('Lambda settings', () => {
  const complete = {
    CLUSTER_NAME: 'prod-eks',
    KUBE_ENDPOINT: 'https://ABC.gr7.us-east-1.eks.amazonaws.com',
    KUBE_CA_DATA: 'LS0tLS1CRUdJTg==',
    AWS_REGION: 'us-east-1',
    STATE_TABLE: 'tidb-reconciler-dev-state',
    RECONCILE_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/tidb-reconciler-dev-reconcile',
    RECONCILE_QUEUE_ARN: 'arn:aws:sqs:us-east-1:123456789012:tidb-reconciler-dev-reconcile',
    SCHEDULER_ROLE_ARN: 'arn:aws:iam::123456789012:role/scheduler',
  };

  it.each([
    { name: 'every unset variable is named at once', env: {}, says: /CLUSTER_NAME: not set; KUBE_ENDPOINT: not set; KUBE_CA_DATA: not set; AWS_REGION: not set; STATE_TABLE: not set; RECONCILE_QUEUE_URL: not set; RECONCILE_QUEUE_ARN: not set; SCHEDULER_ROLE_ARN: not set/ },
    { name: 'an endpoint that is not https is named', env: { ...complete, KUBE_ENDPOINT: 'http://kubernetes.local' }, says: /KUBE_ENDPOINT: "http:\/\/kubernetes.local" must be an https URL/ },
    { name: 'a cluster name that cannot start a cluster key is named', env: { ...complete, CLUSTER_NAME: 'prod/eks' }, says: /CLUSTER_NAME: "prod\/eks" is not a valid cluster name/ },
    { name: 'an unknown component access mode is named', env: { ...complete, COMPONENT_ACCESS: 'vpn' }, says: /COMPONENT_ACCESS: "vpn" must be one of direct, api-proxy/ },
  ])('$name', ({ env, says }) => {
    // Act
    const read = () => lambdaSettings(env);

    // Assess
    expect(read).toThrow(says);
  });

  it('a complete environment is read, the CA data never echoed in errors', () => {
    // Act
    const settings = lambdaSettings({ ...complete, SCHEDULER_GROUP: 'timers' });

    // Assess
    expect(settings).toEqual(expect.objectContaining({ clusterName: 'prod-eks', region: 'us-east-1', schedulerGroup: 'timers' }));
    expect(() => lambdaSettings({ ...complete, STATE_TABLE: '' })).toThrow(expect.objectContaining({ message: expect.not.stringContaining('LS0tLS1CRUdJTg==') }));
  });

  it.each([
    { name: 'unset: direct, as TiDB Operator reaches the components (the functions are in the cluster VPC)', value: undefined, mode: 'direct' },
    { name: 'api-proxy only when asked for', value: 'api-proxy', mode: 'api-proxy' },
    { name: 'direct when asked for', value: ' direct ', mode: 'direct' },
  ])('COMPONENT_ACCESS $name', ({ value, mode }) => {
    expect(lambdaSettings({ ...complete, ...(value === undefined ? {} : { COMPONENT_ACCESS: value }) }).componentAccess).toBe(mode);
  });
});

describe('calls end with the step budget', () => {
  it('a call still running when the budget runs out is abandoned with the budget’s error', async () => {
    // Prepare
    const budget = new AbortController();
    const never = new Promise<string>(() => undefined);

    // Act
    const run = withinBudget(budget.signal, 'list Pods', () => never);
    budget.abort(new TransientError('step time budget exhausted (safety margin reached)'));

    // Assess
    await expect(run).rejects.toThrow('step time budget exhausted');
  });

  it('a call that finishes in time settles as the call did', async () => {
    // Act
    const run = withinBudget(new AbortController().signal, 'get TidbCluster', async () => 'answer');

    // Assess
    await expect(run).resolves.toBe('answer');
  });
});
