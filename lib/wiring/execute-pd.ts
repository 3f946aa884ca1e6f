/**
 * PD calls of a plan (reference §3.1), each idempotent or verified as TiDB Operator's pdapi does:
 * a member PD no longer lists is already deleted (checked before calling); a 404 counts as done only
 * when a fresh read confirms it. Store calls: a store PD does not list as live is already deleted; an
 * evict-leader scheduler counts as added when PD lists it and as removed when PD does not.
 */

import type { MemberAction, PdDeleteMemberAction, PdSetReplicationAction } from '../model/action.js';
import { NotFoundError, TerminalError, TransientError } from '../platform/errors.js';
import type { PdMembers, PdPort } from '../pd/port.js';
import { ComponentStatusError } from '../components/caller.js';

/** The PD actions. */
export type PdAction = Extract<MemberAction, { kind: `pd.${string}` }>;

/** Runs one PD action (see the module comment); throws the client's typed errors otherwise. */
export async function executePd(pd: PdPort, action: PdAction): Promise<void> {
  switch (action.kind) {
    case 'pd.transferLeader':
      return transferLeader(pd, action.to);
    case 'pd.transferPrimary':
      return pd.transferMsPrimary(action.service, action.to);
    case 'pd.deleteMember':
      return deleteMember(pd, action);
    case 'pd.deleteStore':
      return deleteStore(pd, action.storeId);
    case 'pd.beginEvictLeader':
      return beginEvictLeader(pd, action.storeId);
    case 'pd.endEvictLeader':
      return endEvictLeader(pd, action.storeId);
    case 'pd.setStoreLabels':
      return pd.setStoreLabels(action.storeId, { ...action.labels });
    case 'pd.setReplication':
      return pd.setReplicationConfig(replicationChange(action.change));
    case 'pd.setStoreState':
      return setStoreUp(pd, action.storeId);
    default: {
      const never: never = action;
      throw new TerminalError(`unknown PD action ${JSON.stringify(never)}`);
    }
  }
}

/**
 * As TiDB Operator: 200 or 404 ends the call. The move itself takes PD a moment, so "done" means
 * "asked"; the rules see who leads in the next step's observation.
 */
async function transferLeader(pd: PdPort, to: string): Promise<void> {
  try {
    await pd.transferLeader(to);
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
  }
}

/**
 * Deletes by name or id, only while PD lists the member. A refusal is done only if PD stopped
 * listing it: by name PD answers 404 for a member it does not have, by id etcd's "member not found"
 * is a 500 (server/api/member.go `DeleteMemberByID`), so after any refusal PD is read again.
 */
async function deleteMember(pd: PdPort, action: PdDeleteMemberAction): Promise<void> {
  const isListed = (answer: PdMembers): boolean =>
    answer.members.some((m) => (action.name !== undefined ? m.name === action.name : m.memberId === action.id));
  if (!isListed(await pd.getMembers())) return;
  try {
    if (action.name !== undefined) await pd.deleteMemberByName(action.name);
    else await pd.deleteMemberById(action.id);
  } catch (err) {
    if (isListed(await pd.getMembers())) throw err;
  }
}

/**
 * As TiDB Operator's `DeleteStore`: only a store PD lists among its live stores (Up, Offline,
 * Down, Disconnected) is deleted — a Tombstone or forgotten store is already gone; 200 and 404 end it.
 */
async function deleteStore(pd: PdPort, storeId: string): Promise<void> {
  const live = await pd.getStores();
  if (!live.stores.some((s) => s.id === storeId)) return;
  try {
    await pd.deleteStore(storeId);
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
  }
}

/**
 * Cancels a store's removal: only a store PD lists as Offline is set Up (one already Up is done
 * without a call); a store PD no longer lists as live (Tombstone, gone) cannot come back — an error.
 */
async function setStoreUp(pd: PdPort, storeId: string): Promise<void> {
  const gone = (): TransientError => new TransientError(`store ${storeId} is not live in PD any more: its removal cannot be cancelled`);
  const live = (await pd.getStores()).stores.find((s) => s.id === storeId);
  if (!live) throw gone();
  if (live.stateName !== 'Offline' && live.stateName !== 'Removing') return;
  try {
    await pd.setStoreState(storeId, 'Up');
  } catch (err) {
    // PD answers 410 (ErrStoreRemoved, server/api/store.go `responseStoreErr`) when the store became
    // Tombstone since the read: the same state as one no longer listed, not a refusal of the call.
    if (statusOf(err) === 410) throw gone();
    throw err;
  }
}

/** The HTTP status of a component answer's error, if it is one. */
function statusOf(err: unknown): number | undefined {
  const cause = err instanceof Error ? err.cause : undefined;
  return cause instanceof ComponentStatusError ? cause.status : undefined;
}

const schedulerOf = (storeId: string): string => `evict-leader-scheduler-${storeId}`;

/**
 * As TiDB Operator's `BeginEvictLeader`: a refused POST (PD answers "scheduler existed" with an
 * error status) is done when PD lists the store's scheduler; otherwise the refusal stands.
 */
async function beginEvictLeader(pd: PdPort, storeId: string): Promise<void> {
  try {
    await pd.beginEvictLeader(storeId);
  } catch (err) {
    if (!(await pd.getEvictLeaderSchedulers()).includes(schedulerOf(storeId))) throw err;
  }
}

/**
 * As TiDB Operator's `EndEvictLeader`: 404 is done; after any other answer PD is asked again, and
 * the call is done only when the store's scheduler is no longer listed.
 */
async function endEvictLeader(pd: PdPort, storeId: string): Promise<void> {
  let refusal: unknown;
  try {
    await pd.endEvictLeader(storeId);
  } catch (err) {
    if (err instanceof NotFoundError) return;
    refusal = err;
  }
  if (!(await pd.getEvictLeaderSchedulers()).includes(schedulerOf(storeId))) return;
  if (refusal !== undefined) throw refusal;
  throw new TransientError(`end leader evict scheduler failed, the store:[${storeId}]'s leader evict scheduler still exists`);
}

function replicationChange(change: PdSetReplicationAction['change']): Parameters<PdPort['setReplicationConfig']>[0] {
  return {
    ...(change.maxReplicas === undefined ? {} : { maxReplicas: change.maxReplicas }),
    ...(change.locationLabels === undefined ? {} : { locationLabels: [...change.locationLabels] }),
    ...(change.enablePlacementRules === undefined ? {} : { enablePlacementRules: change.enablePlacementRules }),
  };
}
