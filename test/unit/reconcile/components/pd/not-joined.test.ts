import { describe, expect, it } from '@jest/globals';

import type { PdMember } from '../../../../../lib/model/pd.js';
import { PD_NOT_JOINED_DEADLINE, PD_NOT_JOINED_GRACE_MS } from '../../../../../lib/reconcile/components/pd/not-joined.js';
import { pdRestartQuorum } from '../../../../../lib/reconcile/components/pd/quorum.js';
import { keepsPdQuorum } from '../../../../../lib/reconcile/components/pd/scale.js';
import { planPdNotJoinedMembers } from '../../../../support/pd-rules.js';
import {
  T0,
  at,
  changeStatus,
  pdMemberView,
  pdViewOf,
  ruleInputOf,
  snapshot,
  tidbCluster,
  withCluster,
  withDeadlines,
  withPd,
} from '../../../../support/fixtures.js';

const ID = '9223372036854775809';
/** A member PD lists without a name: its join added it and died before etcd started. */
const notJoined = (peerHost = 'basic-pd-3.basic-pd-peer.demo.svc', id = ID): PdMember => ({ name: '', id, clientUrls: [], peerUrls: [`http://${peerHost}:2380`], health: false });
const named = (i: number, health = true) => pdMemberView(`basic-pd-${i}`, { health });
const statusOf = (healths: boolean[]) =>
  Object.fromEntries(healths.map((health, i) => [`basic-pd-${i}`, { name: `basic-pd-${i}`, id: named(i).id, clientURL: named(i).clientUrls[0] ?? '', health }]));
const deadline = (sinceMs: number) => ({ component: 'pd', member: ID, kind: PD_NOT_JOINED_DEADLINE, sinceMs, deadlineAtMs: sinceMs + PD_NOT_JOINED_GRACE_MS });
const warning = (reason: string, message: string, once?: true) => ({
  kind: 'event',
  type: 'Warning',
  reason,
  message,
  object: { kind: 'TidbCluster', namespace: 'demo', name: 'basic' },
  ...(once ? { once } : {}),
});

function input(o: { healths?: boolean[]; extra?: PdMember[]; leader?: string | null; nowMs?: number; since?: number }) {
  const healths = o.healths ?? [true, true, true];
  const tc = tidbCluster(changeStatus((st) => ({ ...st, pd: { synced: true, members: statusOf(healths) } })));
  const members = [...healths.map((h, i) => named(i, h)), ...(o.extra ?? [notJoined()])];
  const view = pdViewOf(members, o.leader === null ? undefined : (o.leader ?? 'basic-pd-0'));
  const changes = [withCluster(tc), withPd(view), at(o.nowMs ?? T0), ...(o.since === undefined ? [] : [withDeadlines(deadline(o.since))])];
  return ruleInputOf(snapshot(...changes));
}

const WHO = `${ID} (never joined, peer http://basic-pd-3.basic-pd-peer.demo.svc:2380)`;

describe('PD members that never joined (PdNotJoinedMembers)', () => {
  it.each([
    {
      name: 'first seen: its deadline is persisted and the key woken at it, nothing deleted',
      o: {},
      actions: [{ kind: 'state.putDeadline', deadline: deadline(T0) }],
      wakeAtMs: T0 + PD_NOT_JOINED_GRACE_MS,
    },
    {
      name: 'within the grace period: nothing more',
      o: { since: T0 - 1_000 },
      actions: [],
      wakeAtMs: T0 - 1_000 + PD_NOT_JOINED_GRACE_MS,
    },
    {
      name: 'past the grace period with a leader and a serving majority left: deleted by id, with a Warning',
      o: { since: T0 - PD_NOT_JOINED_GRACE_MS },
      actions: [{ kind: 'pd.deleteMember', id: ID }, warning('PDMemberDeleted', `PD member ${WHO} was added by a join that never started: deleted from PD cluster by id`)],
      wakeAtMs: undefined,
    },
    {
      name: 'past the grace period without a PD leader: waits with a PDQuorumAtRisk Warning',
      o: { since: T0 - PD_NOT_JOINED_GRACE_MS, leader: null },
      actions: [warning('PDQuorumAtRisk', `removing PD member ${WHO} waits: PD has no leader or would be left without a serving majority`, true)],
      wakeAtMs: undefined,
    },
    {
      name: 'past the grace period when the rest would have no serving majority (1 of 2 named serving, 3 left): waits',
      o: { since: T0 - PD_NOT_JOINED_GRACE_MS, healths: [true, false, false, true] },
      actions: [warning('PDQuorumAtRisk', `removing PD member ${WHO} waits: PD has no leader or would be left without a serving majority`, true)],
      wakeAtMs: undefined,
    },
    {
      name: 'a nameless member of another cluster sharing PD is left to that cluster',
      o: { extra: [notJoined('other-pd-0.other-pd-peer.demo.svc')] },
      actions: [],
      wakeAtMs: undefined,
    },
    {
      name: 'once PD no longer lists it, its deadline is deleted',
      o: { extra: [], since: T0 - 5_000 },
      actions: [{ kind: 'state.deleteDeadline', deadline: { component: 'pd', member: ID, kind: PD_NOT_JOINED_DEADLINE } }],
      wakeAtMs: undefined,
    },
  ])('$name', ({ o, actions, wakeAtMs }) => {
    // Act
    const decision = planPdNotJoinedMembers(input(o));
    // Assess
    expect(decision.actions).toEqual(actions);
    expect(decision.wakeAtMs).toEqual(wakeAtMs);
  });
});

describe('quorum checks count a member that never joined in PD’s size, never as serving', () => {
  it.each([
    { name: 'three serving, none unjoined: restarting one leaves 2 of 3', extra: [], keepsQuorum: true },
    { name: 'three serving and one unjoined: restarting one leaves 2 of 4, no majority', extra: [notJoined()], keepsQuorum: false },
  ])('restart: $name', ({ extra, keepsQuorum }) => {
    // Act
    const quorum = pdRestartQuorum(input({ extra }), 'basic-pd-2');
    // Assess
    expect(quorum.keepsQuorum).toBe(keepsQuorum);
    expect(quorum.total).toBe(3 + extra.length);
  });

  it.each([
    { name: 'three of four named serving, none unjoined: removing a serving one leaves 2 of 3', extra: [], keeps: true },
    { name: 'three of four named serving and one unjoined: removing a serving one leaves 2 of 4, no majority', extra: [notJoined()], keeps: false },
  ])('scale-in: $name', ({ extra, keeps }) => {
    // Act / Assess
    expect(keepsPdQuorum(input({ healths: [true, true, true, false], extra }), 'basic-pd-0')).toBe(keeps);
  });
});
