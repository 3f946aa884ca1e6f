/**
 * `tidb-reconciler admin` end to end: against a deployed stack through the AWS SDK Lambda client (a
 * local HTTP server speaking Lambda's Invoke API stands in for AWS), through a function URL (the
 * local admin endpoint verifying the SigV4 signature made with the SDK's default credentials), and
 * against a local stack (the real admin handler behind the local admin endpoint, state in dynalite,
 * a simulated API server whose RBAC decides who may act where).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAdminHandler } from '../../functions/admin.js';
import { runAdminCommand } from '../../lib/cli/admin.js';
import { MemoryAccessEntries } from '../../lib/eks/port.js';
import { newLocalCredentials, startAdminEndpoint, writeEndpointFile, type AdminEndpoint } from '../../lib/local/admin-endpoint.js';
import { LOCAL_ACCOUNT_ID, LOCAL_OPERATOR, operatorAccessEntry, operatorRbacObjects, sessionArnOf } from '../../lib/local/admin-identity.js';
import { RealClock } from '../../lib/platform/clock.js';
import { MemoryReconcileQueue } from '../../lib/queue/memory.js';
import { tidbClusterObject } from '../../lib/sim/tidb/manifests.js';
import { MemoryScheduler } from '../../lib/timer/memory-scheduler.js';
import { localRuntime } from '../../lib/wiring/ports.js';
import { SimComponentNetwork } from '../../lib/local/sim-network.js';
import { startBareServer, type BareServer } from '../support/api-server.js';
import { functionUser } from '../../lib/local/function-rbac.js';
import { type EmbeddedDynamo, startEmbeddedDynamo } from '../../lib/local/dynalite.js';
import { handCluster } from './tidb-harness.js';

/** Runs the command, collecting what it prints. */
async function admin(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runAdminCommand(args, { env, out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

type Invocation = { fn: string; qualifier: string | null; payload: unknown; authorization: string; invocationType: string };

/** Lambda's Invoke API (POST /2015-03-31/functions/{name}/invocations); each function name answers its own way. */
async function startFakeLambda(): Promise<{ endpoint: string; invocations: Invocation[]; close(): Promise<void> }> {
  const invocations: Invocation[] = [];
  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '', 'http://lambda');
    const match = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/.exec(url.pathname);
    const body = await text(req);
    if (req.method !== 'POST' || !match) return void res.writeHead(404).end();
    const fn = decodeURIComponent(match[1] ?? '');
    const payload = JSON.parse(body) as { action: string; cluster: unknown };
    invocations.push({ fn, qualifier: url.searchParams.get('Qualifier'), payload, authorization: String(req.headers.authorization), invocationType: String(req.headers['x-amz-invocation-type']) });
    const json = (status: number, doc: unknown, headers: Record<string, string> = {}) => res.writeHead(status, { 'Content-Type': 'application/json', 'X-Amz-Executed-Version': '$LATEST', ...headers }).end(JSON.stringify(doc));
    switch (fn) {
      case 'answers':
        return json(200, { ok: true, action: payload.action, cluster: payload.cluster, key: 'eks/demo/basic', history: [] });
      case 'refuses':
        return json(200, { ok: false, error: 'TidbCluster demo/basic not found', field: 'cluster' });
      case 'crashes':
        return json(200, { errorType: 'Runtime.ImportModuleError', errorMessage: "Cannot find module 'x'" }, { 'X-Amz-Function-Error': 'Unhandled' });
      case 'hangs':
        return; // never answers
      default:
        return json(404, { Type: 'User', message: `Function not found: ${fn}` }, { 'x-amzn-ErrorType': 'ResourceNotFoundException' });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    invocations,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

function text(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let s = '';
    req.on('data', (c: Buffer) => (s += c.toString('utf8')));
    req.on('end', () => resolve(s));
  });
}

const TEAM_B_ROLE = `arn:aws:iam::${LOCAL_ACCOUNT_ID}:role/team-b`;

const AWS_ENV = { AWS_ACCESS_KEY_ID: 'AKIDADMINTEST', AWS_SECRET_ACCESS_KEY: 'secret', AWS_REGION: 'eu-west-1' };

describe('admin against a deployed stack (the AWS SDK Lambda client)', () => {
  let lambda: Awaited<ReturnType<typeof startFakeLambda>>;
  const saved: Record<string, string | undefined> = {};
  beforeAll(async () => {
    lambda = await startFakeLambda();
    // The SDK's default credential chain reads the environment first.
    for (const [k, v] of Object.entries(AWS_ENV)) [saved[k], process.env[k]] = [process.env[k], v];
  });
  afterAll(async () => {
    for (const k of Object.keys(AWS_ENV)) if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
    await lambda.close();
  });

  it('invokes the function synchronously with the admin payload, signed with the caller\'s credentials, and prints the answer', async () => {
    // Act
    const r = await admin(['history', 'demo/basic', '--limit', '2', '--function', 'answers', '--endpoint', lambda.endpoint], AWS_ENV);
    // Assess
    expect(r).toEqual({ code: 0, out: expect.stringContaining('Step history of demo/basic (newest first, 0 records)'), err: '' });
    const sent = lambda.invocations.at(-1);
    expect(sent).toEqual({ fn: 'answers', qualifier: 'live', payload: { action: 'history', cluster: { namespace: 'demo', name: 'basic' }, limit: 2 }, invocationType: 'RequestResponse', authorization: expect.stringMatching(/^AWS4-HMAC-SHA256 Credential=AKIDADMINTEST\/\d{8}\/eu-west-1\/lambda\/aws4_request/) });
  });

  it.each([
    { name: 'an ok:false answer exits 1 with the error and field', fn: 'refuses', want: 'admin: TidbCluster demo/basic not found (field: cluster)' },
    { name: 'an unhandled function error is shown as such', fn: 'crashes', want: "the admin function failed (Unhandled): Runtime.ImportModuleError: Cannot find module 'x'" },
    { name: 'a function that does not exist', fn: 'missing', want: 'invoking missing in eu-west-1: ResourceNotFoundException' },
    { name: 'no answer within --timeout', fn: 'hangs', want: 'invoking hangs in eu-west-1: ', timeout: '1s' },
  ])('$name', async ({ fn, want, timeout }) => {
    // Act
    const r = await admin(['status', 'demo/basic', '--function', fn, '--region', 'eu-west-1', '--endpoint', lambda.endpoint, ...(timeout ? ['--timeout', timeout] : [])], AWS_ENV);
    // Assess
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toContain(want);
  });

  it.each(['pause', 'resume', 'reconcile-now', 'force-upgrade'])('%s with --function is a usage error: a direct invoke carries no caller, so --url is named', async (action) => {
    // Act
    const r = await admin([action, 'demo/basic', '--function', 'answers', '--endpoint', lambda.endpoint], AWS_ENV);
    // Assess
    expect(r.code).toBe(2);
    expect(r.err).toContain(`${action} changes the cluster, so the admin function must know who asks: send it to the function URL with --url URL`);
    expect(lambda.invocations.filter((i) => (i.payload as { action: string }).action !== 'status' && (i.payload as { action: string }).action !== 'history')).toEqual([]);
  });

  it('--url signs the request with the default credential chain; the URL (verifying it) hands the function the caller and the request', async () => {
    // Prepare: a function URL that accepts the environment's credentials and records what the function got
    const events: { body?: string; requestContext?: { authorizer?: { iam?: { userArn?: string } } } }[] = [];
    const url = await startAdminEndpoint(
      async (event) => {
        events.push(event as never);
        return { statusCode: 200, body: JSON.stringify({ ok: true, action: 'pause', cluster: { namespace: 'demo', name: 'basic' }, key: 'eks/demo/basic', changed: true }) };
      },
      { accessKeyId: AWS_ENV.AWS_ACCESS_KEY_ID, secretAccessKey: AWS_ENV.AWS_SECRET_ACCESS_KEY, callerArn: 'arn:aws:iam::123456789012:user/alice' },
    );
    try {
      // Act
      const r = await admin(['pause', 'demo/basic', '--url', url.url], AWS_ENV);
      // Assess
      expect(r).toEqual({ code: 0, out: expect.stringContaining('pause demo/basic: ok (changed)'), err: '' });
      expect(events.map((e) => [e.requestContext?.authorizer?.iam?.userArn, JSON.parse(e.body ?? '')])).toEqual([['arn:aws:iam::123456789012:user/alice', { action: 'pause', cluster: { namespace: 'demo', name: 'basic' } }]]);
    } finally {
      await url.stop();
    }
  });

  it('--json prints the answer exactly as the function gave it', async () => {
    const r = await admin(['status', 'demo/basic', '--function', 'refuses', '--json', '--endpoint', lambda.endpoint], AWS_ENV);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out)).toEqual({ ok: false, error: 'TidbCluster demo/basic not found', field: 'cluster' });
  });
});

describe('admin against the local stack (its admin endpoint, the real handler, dynalite)', () => {
  const TABLE = 'cli-admin';
  let api: BareServer;
  let dynamo: EmbeddedDynamo;
  let endpoint: AdminEndpoint;
  let teamB: AdminEndpoint;
  let stackFile: string;
  let teamBFile: string;
  beforeAll(async () => {
    // The admin function as its own role of the packaged template, enforced by the local ends, and
    // as its access entry's Kubernetes user under infra/'s RBAC (ADR 0017).
    dynamo = await startEmbeddedDynamo(TABLE);
    const ids = dynamo.identities;
    api = await startBareServer({ as: functionUser(ids, 'admin') });
    const clock = new RealClock();
    const queue = new MemoryReconcileQueue({ clock });
    const scheduler = ids.scheduler('admin', new MemoryScheduler({ clock, queue, deliverTo: ids.deliverTo(queue) }));
    // In the cluster's VPC, reaching the components directly (the default, docs/adr/0018).
    const componentAccess = { mode: 'direct' as const, network: new SimComponentNetwork(api.proxy, { inVpc: true }) };
    const runtime = localRuntime({ kubeConfig: api.kubeConfig, dynamo: ids.dynamo('admin'), tableName: TABLE, queue: ids.queue('admin', queue), clock, k8sCluster: 'local', scheduler, timerTarget: ids.timerTarget, componentAccess });
    // The local operator is admin everywhere; team-b's role may act in namespace team-b only.
    for (const object of operatorRbacObjects(LOCAL_OPERATOR)) api.store.create(String(object.kind), structuredClone(object));
    api.store.create('Namespace', { metadata: { name: 'team-b' } });
    api.store.create('RoleBinding', { metadata: { name: 'tidb-reconciler-admin', namespace: 'team-b' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'tidb-reconciler-admin' }, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'team-b-tidb-admins' }] } as never);
    const accessEntries = new MemoryAccessEntries([operatorAccessEntry(LOCAL_OPERATOR), { ...operatorAccessEntry({ roleArn: TEAM_B_ROLE, group: 'team-b-tidb-admins' }) }]);
    const handler = createAdminHandler({ runtime: () => runtime, accessEntries: () => ids.accessEntries('admin', accessEntries) });
    endpoint = await startAdminEndpoint(handler, newLocalCredentials(sessionArnOf(LOCAL_OPERATOR.roleArn, 'tester')));
    teamB = await startAdminEndpoint(handler, newLocalCredentials(sessionArnOf(TEAM_B_ROLE, 'bob')));
    const dir = mkdtempSync(join(tmpdir(), 'admin-'));
    stackFile = join(dir, '.tidb-reconciler', 'local-stack.json');
    teamBFile = join(dir, 'team-b.json');
    writeEndpointFile(stackFile, { pid: process.pid, adminUrl: endpoint.url, apiServerUrl: api.url, region: endpoint.region, credentials: endpoint.credentials });
    writeEndpointFile(teamBFile, { pid: process.pid, adminUrl: teamB.url, apiServerUrl: api.url, region: teamB.region, credentials: teamB.credentials });
    // A TidbCluster whose PD has no pods: steps run, PD is unreachable.
    api.store.create('TidbCluster', tidbClusterObject(handCluster({ pd: 1, tikv: undefined, tidb: undefined })));
  }, 60_000);
  afterAll(async () => {
    await endpoint.stop();
    await teamB.stop();
    await api.close();
    await dynamo.close();
  });

  it('pause writes spec.paused and steps; history then lists that step; status shows the state', async () => {
    // Act
    const paused = await admin(['pause', 'demo/basic', '--local', stackFile]);
    const history = await admin(['history', 'demo/basic', '--local', stackFile]);
    const status = await admin(['status', 'demo/basic', '--local', stackFile]);
    // Assess
    expect(paused).toEqual({ code: 0, out: expect.stringMatching(/^pause demo\/basic: ok \(changed\)\n {2}requested by arn:aws:sts::000000000000:assumed-role\/local-operator\/tester \(Kubernetes user "[^"]+"\)\n {2}step \S+: stepped/), err: '' });
    expect(api.store.get('TidbCluster', 'demo', 'basic')?.spec?.paused).toBe(true);
    expect(history.code).toBe(0);
    expect(history.out.split('\n')[0]).toBe('Step history of demo/basic (newest first, 1 record)');
    expect(history.out).toMatch(/\n\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ\s+admin:pause\s/);
    expect(history.out).toMatch(/\n\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ\s+admin:pause by assumed-role\/l/);
    const wide = await admin(['history', '-n', 'demo', 'basic', '-o', 'wide', '--local', stackFile]);
    expect(wide.out).toMatch(/\n\s+by arn:aws:sts::000000000000:assumed-role\/local-operator\/tester\s*$/m);
    const event = api.store.list('Event', 'demo').find((e) => (e as { reason?: string }).reason === 'AdminPause') as { message?: string } | undefined;
    expect(event?.message).toBe(`pause requested by arn:aws:sts::${LOCAL_ACCOUNT_ID}:assumed-role/local-operator/tester (Kubernetes user "arn:aws:sts::${LOCAL_ACCOUNT_ID}:assumed-role/local-operator/tester")`);
    expect(status.code).toBe(0);
    expect(status.out).toContain('TidbCluster demo/basic   (key local/demo/basic)');
    expect(status.out).toContain('Lease:        free');
    expect(status.out).toMatch(/Fence:\s+1/);
  });

  it('a caller whose RBAC allows another namespace only is refused, naming the namespace and the permission; nothing changes', async () => {
    // Prepare
    const before = api.store.get('TidbCluster', 'demo', 'basic');
    // Act
    const r = await admin(['resume', 'demo/basic', '--local', teamBFile]);
    // Assess
    expect(r.code).toBe(1);
    expect(r.err).toContain(`admin: ${sessionArnOf(TEAM_B_ROLE, 'bob')} (Kubernetes user "${sessionArnOf(TEAM_B_ROLE, 'bob')}", groups [team-b-tidb-admins, system:authenticated]) may not patch tidbclusters.pingcap.com "basic" in namespace "demo": resume needs it; nothing was changed`);
    expect(api.store.get('TidbCluster', 'demo', 'basic')?.metadata.resourceVersion).toBe(before?.metadata.resourceVersion);
  });

  it('a request not signed with the local credentials is refused before the function runs (403)', async () => {
    // Prepare: the endpoint file with a wrong secret
    const forged = join(mkdtempSync(join(tmpdir(), 'admin-')), 'forged.json');
    writeEndpointFile(forged, { pid: process.pid, adminUrl: endpoint.url, apiServerUrl: api.url, region: endpoint.region, credentials: { ...endpoint.credentials, secretAccessKey: 'guessed' } });
    // Act
    const r = await admin(['pause', 'demo/basic', '--local', forged]);
    // Assess
    expect(r.code).toBe(1);
    expect(r.err).toContain('refused the request (HTTP 403): Forbidden: The request signature we calculated does not match the signature you provided');
  });

  it('every call of the admin function was allowed by its role', () => {
    expect(dynamo.identities.iam.denials).toEqual([]);
    expect(dynamo.identities.iam.used.get('admin')).toEqual(expect.any(Set));
  });

  it('a cluster that does not exist is answered ok:false naming cluster (exit 1)', async () => {
    const r = await admin(['status', 'demo/nothing', '--local', stackFile]);
    expect(r).toEqual({ code: 1, out: '', err: 'admin: TidbCluster demo/nothing not found (field: cluster)' });
  });

  it('without a running local stack the error says how to get one', async () => {
    const r = await admin(['status', 'demo/basic', '--local', join(tmpdir(), 'no-such-dir', 'local-stack.json')]);
    expect(r.code).toBe(1);
    expect(r.err).toContain('no local stack:');
    expect(r.err).toContain('npm start');
  });

  it('the admin function made its Kubernetes requests as its own user, under infra/\'s RBAC, and none was refused', () => {
    expect(api.gate?.denials).toEqual([]);
    expect([...(api.gate?.usage.keys() ?? [])].filter((user) => user.endsWith('/tidb-reconciler-dev-admin'))).toHaveLength(1);
    expect(api.gate?.usage.size).toBe(1);
  });
});
