/**
 * PD calls of a plan (reference §3.1), each idempotent or verified as TiDB Operator's pdapi does:
 * a member or store PD no longer lists is already deleted (checked before calling); a 404 counts as
 * done only when a fresh read confirms it; an evict-leader scheduler is judged by PD's scheduler list,
 * not by the answer to the call that added or removed it.
 */

import type { MemberAction, PdDeleteMemberAction } from '../model/action.js';
import { NotFoundError, TerminalError, TransientError } from '../platform/errors.js';
import { EVICT_LEADER_SCHEDULER } from '../pd/client.js';
import type { PdMembers, PdPort } from '../pd/port.js';

/** The PD actions. */
export type PdAction = Extract<MemberAction, { kind: `pd.${string}` }>;

/** Runs one PD action (see the module comment); throws the client's typed errors otherwise. */
export async function executePd(pd: PdPort, action: PdAction): Promise<void> {
  switch (action.kind) {
    case 'pd.transferLeader':
      return transferLeader(pd, action.to);
    case 'pd.deleteMember':
      return deleteMember(pd, action);
    case 'pd.deleteStore':
      return deleteStore(pd, action.id);
    case 'pd.setStoreLabels':
      return pd.setStoreLabels(action.id, { ...action.labels });
    case 'pd.addEvictLeaderScheduler':
      return addEvictLeader(pd, action.storeId);
    case 'pd.removeEvictLeaderScheduler':
      return removeEvictLeader(pd, action.storeId);
    case 'pd.updateReplicationConfig': {
      const { isolationLevel, maxReplicas, locationLabels, enablePlacementRules } = action.config;
      if (isolationLevel !== undefined) {
        throw new TerminalError('pd.updateReplicationConfig: isolation-level is not supported by the PD port', { field: 'isolationLevel' });
      }
      return pd.setReplicationConfig({
        ...(maxReplicas !== undefined ? { maxReplicas } : {}),
        ...(locationLabels !== undefined ? { locationLabels: [...locationLabels] } : {}),
        ...(enablePlacementRules !== undefined ? { enablePlacementRules } : {}),
      });
    }
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

/** Deletes by name or id, only while PD lists the member; a 404 is done only if PD stopped listing it. */
async function deleteMember(pd: PdPort, action: PdDeleteMemberAction): Promise<void> {
  const isListed = (answer: PdMembers): boolean =>
    answer.members.some((m) => (action.name !== undefined ? m.name === action.name : m.memberId === action.id));
  if (!isListed(await pd.getMembers())) return;
  try {
    if (action.name !== undefined) await pd.deleteMemberByName(action.name);
    else await pd.deleteMemberById(action.id);
  } catch (err) {
    if (!(err instanceof NotFoundError) || isListed(await pd.getMembers())) throw err;
  }
}

/** Takes a store offline, only while PD lists it as not yet Tombstone; same 404 rule as members. */
async function deleteStore(pd: PdPort, storeId: string): Promise<void> {
  const isListed = async (): Promise<boolean> => (await pd.getStores()).stores.some((s) => s.id === storeId);
  if (!(await isListed())) return;
  try {
    await pd.deleteStore(storeId);
  } catch (err) {
    if (!(err instanceof NotFoundError) || (await isListed())) throw err;
  }
}

/** As TiDB Operator: whatever the POST answered, the scheduler being listed is success. */
async function addEvictLeader(pd: PdPort, storeId: string): Promise<void> {
  try {
    await pd.beginEvictLeader(storeId);
  } catch (err) {
    if (!(await isEvicting(pd, storeId))) throw err;
  }
}

/** As TiDB Operator: 404 is success; otherwise success only once PD no longer lists the scheduler. */
async function removeEvictLeader(pd: PdPort, storeId: string): Promise<void> {
  try {
    await pd.endEvictLeader(storeId);
  } catch (err) {
    if (err instanceof NotFoundError) return;
    if (await isEvicting(pd, storeId)) throw err;
    return;
  }
  if (await isEvicting(pd, storeId)) {
    throw new TransientError(`PD still lists ${EVICT_LEADER_SCHEDULER}-${storeId} after removing it`);
  }
}

async function isEvicting(pd: PdPort, storeId: string): Promise<boolean> {
  return (await pd.getEvictLeaderSchedulers()).includes(`${EVICT_LEADER_SCHEDULER}-${storeId}`);
}
