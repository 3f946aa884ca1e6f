import { describe, it, expect } from '@jest/globals';

import { createAdminHandler, handler as deployedHandler } from '../../../functions/admin.js';
import { MemoryAccessEntries } from '../../../lib/eks/port.js';
import { functionUrlEvent } from '../../../lib/local/function-url.js';
import { fakeRuntime, lambdaContext, tidbCluster, type FakeRuntime } from './runtime-fakes.js';

const cluster = { namespace: 'demo', name: 'basic' };
const ACCOUNT = '111122223333';
const ALICE = `arn:aws:sts::${ACCOUNT}:assumed-role/team-a/alice@example.com`;
const entries = () =>
  new MemoryAccessEntries([
    { principalArn: `arn:aws:iam::${ACCOUNT}:role/team-a`, username: `arn:aws:sts::${ACCOUNT}:assumed-role/team-a/{{SessionName}}`, kubernetesGroups: ['team-a-admins'], type: 'STANDARD' },
    { principalArn: `arn:aws:iam::${ACCOUNT}:role/ops/oncall`, username: 'oncall:{{SessionNameRaw}}', kubernetesGroups: [], type: 'STANDARD' },
  ]);

/** The handler over `fake`, with the access entries above; RBAC (the fake) allows group team-a-admins in demo only. */
function handlerOf(fake: FakeRuntime) {
  fake.kube.allow = (r) => r.groups.includes('team-a-admins') && r.namespace === 'demo';
  return createAdminHandler({ runtime: () => fake.runtime, accessEntries: entries });
}

/** A function URL request of `payload` by `arn`, and its answer's status and body. */
async function viaUrl(fake: FakeRuntime, payload: unknown, arn = ALICE, requestId = 'req-9') {
  const response = (await handlerOf(fake)(functionUrlEvent(JSON.stringify(payload), { arn, accountId: ACCOUNT }), lambdaContext(requestId))) as { statusCode: number; body: string };
  return { statusCode: response.statusCode, body: JSON.parse(response.body) as Record<string, unknown> };
}

describe('admin handler', () => {
  it.each([
    { name: 'an unknown action is answered naming action', payload: { action: 'restart', cluster }, field: 'action' },
    { name: 'an unknown component is answered naming component', payload: { action: 'force-upgrade', cluster, component: 'tiproxy' }, field: 'component' },
    { name: 'a history limit that is not a whole number is answered naming limit', payload: { action: 'history', cluster, limit: 2.5 }, field: 'limit' },
    { name: 'a payload that is not an object is answered naming request', payload: 'pause', field: 'request' },
  ])('$name, even where nothing is configured', async ({ payload, field }) => {
    // Act
    const result = await deployedHandler(payload, lambdaContext());

    // Assess
    expect(result).toEqual({ ok: false, error: expect.any(String), field });
  });

  it.each([
    { name: 'a 1.5 MB action', payload: { action: 'a'.repeat(1_500_000), cluster }, field: 'action' },
    { name: 'a 1.5 MB cluster name of control characters (6 bytes each escaped)', payload: { action: 'pause', cluster: { namespace: 'demo', name: '\u0001'.repeat(1_500_000) } }, field: 'cluster.name' },
    { name: 'a 1.5 MB unknown field name', payload: { action: 'pause', cluster, ['f'.repeat(1_500_000)]: 1 }, field: expect.stringMatching(/^f{1024}… \(1500000 bytes, first 1024 shown\)$/) },
  ])('$name is answered well under the 6 MB response limit, echoing at most 1 KB of it', async ({ payload, field }) => {
    // Act
    const result = await deployedHandler(payload, lambdaContext());

    // Assess
    expect(result).toEqual({ ok: false, error: expect.stringMatching(/\(1500000 bytes, first \d+ shown\)/), field });
    expect(Buffer.byteLength(JSON.stringify(result))).toBeLessThan(3_000);
  });

  it('a valid request where nothing is configured is answered naming the missing variables', async () => {
    // Act
    const result = await deployedHandler({ action: 'status', cluster }, lambdaContext());

    // Assess
    expect(result).toEqual({ ok: false, error: expect.stringMatching(/not configured.*CLUSTER_NAME: not set/) });
  });

  it.each(['reconcile', 'pause', 'resume'])('%s by direct invoke is refused: it carries no caller, and nothing is written', async (action) => {
    // Prepare
    const fake = fakeRuntime([tidbCluster('basic')]);

    // Act
    const result = await handlerOf(fake)({ action, cluster }, lambdaContext());

    // Assess
    expect(result).toEqual({ ok: false, forbidden: true, error: expect.stringContaining(`${action} changes the cluster, so it needs the caller's verified identity: send it to the admin function URL`) });
    expect(fake.kube.reviews).toEqual([]);
    expect(await fake.state.listHistory('eks-test/demo/basic', 5)).toEqual([]);
  });

  it('reconcile over the URL by an allowed caller runs one step, recorded with who asked (history, log line, Event)', async () => {
    // Prepare
    const fake = fakeRuntime([tidbCluster('basic')]);

    // Act
    const { statusCode, body } = await viaUrl(fake, { action: 'reconcile', cluster });

    // Assess
    expect(statusCode).toBe(200);
    expect(body).toEqual(expect.objectContaining({ ok: true, action: 'reconcile', cluster, key: 'eks-test/demo/basic' }));
    expect(body['step']).toEqual(expect.objectContaining({ disposition: 'stepped', fence: 1, statusWritten: true }));
    const requestedBy = { arn: ALICE, username: `arn:aws:sts::${ACCOUNT}:assumed-role/team-a/alice-example.com` };
    expect(fake.kube.reviews).toEqual([{ user: requestedBy.username, groups: ['team-a-admins', 'system:authenticated'], verb: 'patch', group: 'pingcap.com', resource: 'tidbclusters', namespace: 'demo', name: 'basic' }]);
    expect((await fake.state.listHistory('eks-test/demo/basic', 5)).map((h) => [h.trigger, h.requestedBy])).toEqual([['admin:reconcile', requestedBy]]);
    expect(fake.logger.lines.find((l) => l.message === 'reconcile step')?.fields).toEqual(expect.objectContaining({ trigger: 'admin:reconcile', requestedBy }));
    // The admin Event, then the step's own: TiDB Operator's control Events for what it created.
    expect(fake.kube.events[0]).toEqual(expect.objectContaining({ type: 'Normal', reason: 'AdminReconcile', message: `reconcile-now requested by ${ALICE} (Kubernetes user "${requestedBy.username}")`, occurrenceKey: 'req-9' }));
    expect(fake.kube.events.slice(1).map((e) => e.reason)).toContain('SuccessfulCreate');
  });

  it('reconcile of a TidbCluster that is gone still steps (so the key is forgotten), with no Event to attach', async () => {
    // Prepare
    const fake = fakeRuntime([]);

    // Act
    const { statusCode, body } = await viaUrl(fake, { action: 'reconcile', cluster });

    // Assess
    expect(statusCode).toBe(200);
    expect(body['step']).toEqual(expect.objectContaining({ disposition: 'stepped' }));
    expect(fake.kube.events).toEqual([]);
  });

  it.each([
    { name: 'a caller RBAC does not allow in that namespace is refused naming caller, namespace and permission', arn: ALICE, namespace: 'other', error: `${ALICE} (Kubernetes user "arn:aws:sts::${ACCOUNT}:assumed-role/team-a/alice-example.com", groups [team-a-admins, system:authenticated]) may not patch tidbclusters.pingcap.com "basic" in namespace "other": pause needs it; nothing was changed` },
    { name: 'a caller without an access entry is refused naming the role looked for', arn: `arn:aws:sts::${ACCOUNT}:assumed-role/intern/bob`, namespace: 'demo', error: `no EKS access entry for arn:aws:iam::${ACCOUNT}:role/intern (the caller arn:aws:sts::${ACCOUNT}:assumed-role/intern/bob): pause needs one mapping it to a Kubernetes user allowed to patch tidbclusters.pingcap.com in namespace "demo"` },
    { name: 'a role with a path is found by its name; its user name template is rendered raw', arn: `arn:aws:sts::${ACCOUNT}:assumed-role/oncall/carol@example.com`, namespace: 'demo', error: `${`arn:aws:sts::${ACCOUNT}:assumed-role/oncall/carol@example.com`} (Kubernetes user "oncall:carol@example.com", groups [system:authenticated]) may not patch` },
    { name: 'a federated user cannot have an access entry', arn: `arn:aws:sts::${ACCOUNT}:federated-user/dave`, namespace: 'demo', error: 'is not an IAM role session or IAM user' },
  ])('$name; nothing is written', async ({ arn, namespace, error }) => {
    // Prepare
    const fake = fakeRuntime([tidbCluster('basic'), { ...tidbCluster('basic'), metadata: { ...tidbCluster('basic').metadata, namespace } }]);

    // Act
    const { statusCode, body } = await viaUrl(fake, { action: 'pause', cluster: { namespace, name: 'basic' } }, arn);

    // Assess
    expect(statusCode).toBe(403);
    expect(body).toEqual({ ok: false, forbidden: true, error: expect.stringContaining(error) });
    expect(fake.kube.events).toEqual([]);
    expect(await fake.state.listHistory(`eks-test/${namespace}/basic`, 5)).toEqual([]);
  });

  it('status over the URL needs no permission (read-only)', async () => {
    // Prepare
    const fake = fakeRuntime([tidbCluster('basic', { ready: true })]);

    // Act
    const { statusCode, body } = await viaUrl(fake, { action: 'status', cluster }, `arn:aws:sts::${ACCOUNT}:assumed-role/intern/bob`);

    // Assess
    expect(statusCode).toBe(200);
    expect(body['ok']).toBe(true);
    expect(fake.kube.reviews).toEqual([]);
  });

  it.each([
    { name: 'a body that is not JSON is answered 400', event: functionUrlEvent('pause!', { arn: ALICE, accountId: ACCOUNT }), statusCode: 400, error: 'the request body is not JSON' },
    { name: 'a URL request without an IAM caller (auth type NONE) is answered 403', event: { ...functionUrlEvent('{}', { arn: ALICE, accountId: ACCOUNT }), requestContext: { http: { method: 'POST' } } }, statusCode: 403, error: 'must use AWS_IAM auth' },
  ])('$name', async ({ event, statusCode, error }) => {
    // Act
    const response = (await handlerOf(fakeRuntime())(event, lambdaContext())) as { statusCode: number; body: string };

    // Assess
    expect(response.statusCode).toBe(statusCode);
    expect(JSON.parse(response.body)).toEqual({ ok: false, error: expect.stringContaining(error) });
  });

  it('force-upgrade of TiKV is refused: TiDB Operator v1 force-upgrades PD only', async () => {
    // Prepare
    const fake = fakeRuntime([tidbCluster('basic')]);

    // Act
    const { body } = await viaUrl(fake, { action: 'force-upgrade', cluster, component: 'tikv' });

    // Assess
    expect(body).toEqual({ ok: false, error: expect.stringContaining('PD only'), field: 'component' });
  });

  it('status of a cluster never stepped answers its status and no state (direct invoke)', async () => {
    // Prepare
    const fake = fakeRuntime([tidbCluster('basic', { ready: true })]);

    // Act
    const result = await createAdminHandler({ runtime: () => fake.runtime })({ action: 'status', cluster }, lambdaContext());

    // Assess
    expect(result).toEqual({ ok: true, action: 'status', cluster, key: 'eks-test/demo/basic', status: { conditions: [{ type: 'Ready', status: 'True' }] }, state: null, deadlines: [] });
  });

  it.each([
    { name: 'status (direct invoke)', action: 'status' },
    { name: 'pause (function URL)', action: 'pause' },
  ])('namespace-scoped (WATCH_NAMESPACES=tidb-a): $name of a cluster in demo is refused naming the namespace, nothing read or asked', async ({ action }) => {
    // Prepare
    const fake = fakeRuntime([tidbCluster('basic', { ready: true })]);
    let reads = 0;
    const runtime = { ...fake.runtime, config: { ...fake.runtime.config, watchNamespaces: ['tidb-a'] } };
    fake.kube.getTidbCluster = async () => (reads++, Promise.reject(new Error('must not be read')));
    const handler = createAdminHandler({ runtime: () => runtime, accessEntries: entries });

    // Act
    const result =
      action === 'status'
        ? await handler({ action, cluster }, lambdaContext())
        : JSON.parse(((await handler(functionUrlEvent(JSON.stringify({ action, cluster }), { arn: ALICE, accountId: ACCOUNT }), lambdaContext())) as { body: string }).body);

    // Assess
    expect(result).toEqual({ ok: false, field: 'cluster.namespace', error: 'cluster.namespace "demo" is not a namespace this deployment watches (WATCH_NAMESPACES: tidb-a)' });
    expect(reads).toBe(0);
    expect(fake.kube.reviews).toEqual([]);
  });
});
