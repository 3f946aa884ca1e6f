/**
 * Who may redrive, through the real admin handler on the simulated stack (its in-memory queue and
 * dead-letter list, the admin role under IAM, the world's RBAC): starting a redrive steps clusters
 * of every namespace, so it needs `patch tidbclusters` in every namespace; a namespace admin may
 * not, a direct invoke (no caller) may not; counting and listing need nothing. An admin function
 * whose queues are not configured says which variables are missing.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { createAdminHandler } from '../../functions/admin.js';
import { SCENARIO_OPERATOR } from '../../lib/local/admin-identity.js';
import { parseScenario } from '../../lib/local/scenario/file.js';
import { SimStack, simulatedContext } from '../../lib/local/sim-stack.js';
import type { KubeObject } from '../../lib/sim/object.js';

const TEAM_A = 'arn:aws:iam::000000000000:role/team-a';
let stack: SimStack;

beforeAll(async () => {
  const file = 'admin-callers-per-namespace.yaml';
  const parsed = parseScenario(readFileSync(join(import.meta.dirname, '..', 'scenarios', file), 'utf8'), file);
  if (!parsed.ok) throw new Error(parsed.error);
  stack = await SimStack.start(parsed.scenario, 1);
  // team-a's and team-b's RoleBindings of the admin ClusterRole in their own namespaces (the file's objects).
  for (const ns of new Set(parsed.scenario.objects.flatMap((o) => (o.metadata.namespace === undefined ? [] : [o.metadata.namespace])))) stack.world.store.create('Namespace', { metadata: { name: ns } });
  for (const object of parsed.scenario.objects) stack.world.store.create(object.kind, structuredClone(object) as unknown as KubeObject);
  // One message failed five receives: it waits in the dead-letter list.
  await stack.queue.send([{ message: { key: 'not a key', reason: 'test', enqueuedAtMs: 0 } }]);
  for (let i = 0; i < 10 && stack.queue.stats().deadLetters === 0; i++) {
    await stack.queue.receive(10, 0);
    await stack.clock.advance(371_000);
  }
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

describe('who may redrive', () => {
  it.each([
    { name: 'a namespace admin may count', caller: TEAM_A, mode: 'dry-run', answer: { ok: true, waiting: 1 } },
    { name: 'a namespace admin may list the tasks', caller: TEAM_A, mode: 'status', answer: { ok: true, tasks: [] } },
    { name: 'a namespace admin may not start one', caller: TEAM_A, mode: 'start', answer: { ok: false, forbidden: true, error: expect.stringContaining('may not patch tidbclusters.pingcap.com in every namespace: redrive needs it (a ClusterRoleBinding); nothing was moved') } },
    { name: 'an admin of every namespace starts one', caller: SCENARIO_OPERATOR.roleArn, mode: 'start', answer: { ok: true, started: true, waiting: 1, requestedBy: expect.objectContaining({ arn: expect.stringContaining('assumed-role/scenario-operator/') }) } },
  ])('$name', async ({ caller, mode, answer }) => {
    const result = await stack.invokeAdmin({ action: 'redrive', mode }, caller);
    expect(result).toEqual(expect.objectContaining(answer));
  });

  it('a direct invoke (no caller) may not start one', async () => {
    const handler = createAdminHandler({ runtime: () => stack.runtimes.admin, accessEntries: () => stack.accessEntries });
    const result = await handler({ action: 'redrive', mode: 'start' }, simulatedContext('direct-1'));
    expect(result).toEqual({ ok: false, forbidden: true, error: expect.stringContaining('a direct invoke carries no caller (--dry-run and --status work either way)') });
  });

  it('an admin function whose queues are not configured names the missing variables', async () => {
    const handler = createAdminHandler({ runtime: () => stack.runtimes.admin, accessEntries: () => stack.accessEntries });
    const saved = { ...process.env };
    for (const name of ['RECONCILE_DLQ_URL', 'RECONCILE_DLQ_ARN', 'RECONCILE_QUEUE_ARN']) delete process.env[name];
    try {
      const result = await handler({ action: 'redrive', mode: 'dry-run' }, simulatedContext('direct-2'));
      expect(result).toEqual({ ok: false, error: expect.stringContaining('redrive is not configured: RECONCILE_DLQ_URL: not set; RECONCILE_DLQ_ARN: not set; RECONCILE_QUEUE_ARN: not set') });
    } finally {
      Object.assign(process.env, saved);
    }
  });

  it.each([
    { name: 'a mode it does not know', payload: { action: 'redrive', mode: 'everything' }, field: 'mode' },
    { name: 'a cluster', payload: { action: 'redrive', mode: 'dry-run', cluster: { namespace: 'team-a', name: 'basic' } }, field: 'cluster' },
  ])('refuses a request with $name, naming the field', async ({ payload, field }) => {
    const result = await stack.invokeAdmin(payload);
    expect(result).toEqual(expect.objectContaining({ ok: false, field }));
  });
});
