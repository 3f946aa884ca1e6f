/**
 * PD calls of a plan (reference §3.1), each idempotent or verified as TiDB Operator's pdapi does:
 * a member PD no longer lists is already deleted (checked before calling); a 404 counts as done only
 * when a fresh read confirms it.
 */

import type { MemberAction, PdDeleteMemberAction } from '../model/action.js';
import { NotFoundError, TerminalError } from '../platform/errors.js';
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
