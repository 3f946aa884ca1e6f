import { describe, expect, it } from '@jest/globals';
import { DEFAULT_ADMIN_TIMEOUT_MS, parseAdminArgs } from '../../lib/cli/admin-args.js';
import { formatAdminAnswer, type TimeFormat } from '../../lib/local/admin-format.js';
import { LOCAL_STACK_FILE } from '../../lib/local/admin-endpoint.js';

const NO_ENV = {};

describe('admin: what each command line sends, and where', () => {
  it.each([
    { name: 'status to the local stack', args: ['status', 'demo/basic'], request: { action: 'status', cluster: { namespace: 'demo', name: 'basic' } }, target: { kind: 'local', stackFile: LOCAL_STACK_FILE } },
    { name: 'reconcile-now is the reconcile action', args: ['reconcile-now', 'demo/basic'], request: { action: 'reconcile', cluster: { namespace: 'demo', name: 'basic' } } },
    { name: 'force-upgrade defaults to PD', args: ['force-upgrade', 'demo/basic'], request: { action: 'force-upgrade', cluster: { namespace: 'demo', name: 'basic' }, component: 'pd' } },
    { name: 'history with a limit', args: ['history', 'tidb/prod', '--limit', '5'], request: { action: 'history', cluster: { namespace: 'tidb', name: 'prod' }, limit: 5 } },
    { name: 'pause to a deployed function URL, its region from the host', args: ['pause', 'demo/basic', '--url', 'https://abc123.lambda-url.eu-west-1.on.aws/'], request: { action: 'pause', cluster: { namespace: 'demo', name: 'basic' } }, target: { kind: 'url', url: 'https://abc123.lambda-url.eu-west-1.on.aws/', region: 'eu-west-1' } },
    { name: 'a function URL behind a custom domain takes --region', args: ['resume', 'demo/basic', '--url', 'https://admin.example.com/', '--region', 'us-east-2'], target: { kind: 'url', url: 'https://admin.example.com/', region: 'us-east-2' } },
    { name: 'history to a deployed function by direct invoke', args: ['history', 'demo/basic', '--function', 'tr-admin', '--region', 'eu-west-1'], target: { kind: 'lambda', functionName: 'tr-admin', region: 'eu-west-1' } },
    { name: 'another local stack file', args: ['resume', 'demo/basic', '--local', '/srv/x.json'], request: { action: 'resume', cluster: { namespace: 'demo', name: 'basic' } }, target: { kind: 'local', stackFile: '/srv/x.json' } },
    { name: 'a name with -n as kubectl takes it', args: ['history', '-n', 'tidb', 'prod'], request: { action: 'history', cluster: { namespace: 'tidb', name: 'prod' } } },
    { name: '--namespace after the name', args: ['status', 'prod', '--namespace', 'tidb'], request: { action: 'status', cluster: { namespace: 'tidb', name: 'prod' } } },
    { name: 'a Lambda endpoint of choice', args: ['status', 'demo/basic', '--function', 'f', '--region', 'r', '--endpoint', 'http://127.0.0.1:4566'], target: { kind: 'lambda', functionName: 'f', region: 'r', endpoint: 'http://127.0.0.1:4566' } },
  ])('$name', ({ args, request, target }) => {
    // Act
    const parsed = parseAdminArgs(args, NO_ENV);
    // Assess
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    if (request) expect(parsed.command.request).toEqual(request);
    if (target) expect(parsed.command.target).toEqual(target);
    expect(parsed.command.timeoutMs).toBe(DEFAULT_ADMIN_TIMEOUT_MS);
  });

  it.each([
    { name: 'none: history fits the terminal', args: [], json: false, wide: false },
    { name: '-o wide', args: ['-o', 'wide'], json: false, wide: true },
    { name: '-o json is --json', args: ['--output', 'json'], json: true, wide: false },
  ])('the output format: $name', ({ args, json, wide }) => {
    const parsed = parseAdminArgs(['history', 'demo/basic', ...args], NO_ENV);
    expect(parsed).toEqual({ ok: true, command: expect.objectContaining({ json, wide }) });
  });

  it.each([
    { name: '<namespace>/<name>: the one EKS cluster', ref: 'demo/basic', cluster: { namespace: 'demo', name: 'basic' } },
    { name: '<eks-cluster>/<namespace>/<name>: one of several', ref: 'prod-b/demo/basic', cluster: { eksCluster: 'prod-b', namespace: 'demo', name: 'basic' } },
  ])('the TidbCluster address: $name', ({ ref, cluster }) => {
    // Act
    const parsed = parseAdminArgs(['status', ref], NO_ENV);
    // Assess
    expect(parsed).toEqual({ ok: true, command: expect.objectContaining({ request: { action: 'status', cluster } }) });
  });

  it('--region falls back to AWS_REGION, --timeout and --json are read', () => {
    // Act
    const parsed = parseAdminArgs(['status', 'demo/basic', '--function', 'f', '--json', '--timeout', '5s'], { AWS_REGION: 'ap-south-1' });
    // Assess
    expect(parsed).toEqual({ ok: true, command: expect.objectContaining({ target: { kind: 'lambda', functionName: 'f', region: 'ap-south-1' }, json: true, timeoutMs: 5000 }) });
  });

  it.each([
    { name: 'no action', args: [], field: 'action', error: 'the action is missing' },
    { name: 'unknown action', args: ['restart', 'demo/basic'], field: 'action', error: 'unknown action "restart"' },
    { name: 'the payload word is not a command word', args: ['reconcile', 'demo/basic'], field: 'action', error: 'unknown action "reconcile"' },
    { name: 'no cluster', args: ['status'], field: 'cluster', error: 'the TidbCluster is missing' },
    { name: 'a ref without namespace', args: ['status', 'basic'], field: 'cluster', error: '"basic" is not <namespace>/<name> (or give -n <namespace> basic)' },
    { name: 'a ref with three slashes', args: ['status', 'a/b/c/d'], field: 'cluster', error: '"a/b/c/d" is not <namespace>/<name>' },
    { name: 'an EKS cluster name EKS refuses', args: ['status', 'prod eks/demo/basic'], field: 'cluster.eksCluster', error: 'cluster.eksCluster must be an EKS cluster name' },
    { name: 'a namespace Kubernetes refuses', args: ['status', 'Demo/basic'], field: 'cluster.namespace', error: 'DNS-1123 label' },
    { name: 'an empty name', args: ['status', 'demo/'], field: 'cluster.name', error: 'cluster.name must be a DNS-1123 subdomain' },
    { name: 'an unknown component', args: ['force-upgrade', 'demo/basic', '--component', 'tikvv'], field: 'component', error: 'component must be one of' },
    { name: '--component on another action', args: ['pause', 'demo/basic', '--component', 'pd'], field: '--component', error: 'for force-upgrade only' },
    { name: '--limit on another action', args: ['status', 'demo/basic', '--limit', '3'], field: '--limit', error: 'for history only' },
    { name: 'a limit out of range', args: ['history', 'demo/basic', '--limit', '500'], field: 'limit', error: 'limit must be a whole number from 1 to 100' },
    { name: 'a limit that is not a number', args: ['history', 'demo/basic', '--limit', 'ten'], field: 'limit', error: 'got "ten"' },
    { name: 'missing --region', args: ['status', 'demo/basic', '--function', 'f'], field: '--region', error: '--region is missing' },
    { name: '--region without --function', args: ['status', 'demo/basic', '--region', 'us-east-1'], field: '--region', error: '--region needs --function' },
    { name: '--local and --function', args: ['status', 'demo/basic', '--function', 'f', '--region', 'r', '--local', 'x'], field: '--local', error: 'give one' },
    { name: 'a bad endpoint', args: ['status', 'demo/basic', '--function', 'f', '--region', 'r', '--endpoint', 'localhost:1'], field: '--endpoint', error: 'must be an http(s) URL' },
    { name: 'a bad timeout', args: ['status', 'demo/basic', '--timeout', 'soon'], field: '--timeout', error: '--timeout: invalid duration' },
    { name: 'pause by direct invoke (no caller)', args: ['pause', 'demo/basic', '--function', 'f', '--region', 'r'], field: '--function', error: 'pause changes the cluster, so the admin function must know who asks: send it to the function URL with --url URL' },
    { name: 'a function URL that is not https', args: ['pause', 'demo/basic', '--url', 'http://abc.lambda-url.eu-west-1.on.aws/'], field: '--url', error: '--url must be an https URL' },
    { name: 'a function URL whose host names no region, without --region', args: ['pause', 'demo/basic', '--url', 'https://admin.example.com/'], field: '--region', error: 'names no region' },
    { name: '--url and --function', args: ['status', 'demo/basic', '--url', 'https://a.lambda-url.r.on.aws/', '--function', 'f'], field: '--function', error: '--function and --url name two different ways in' },
    { name: 'an unknown option, with the nearest known', args: ['status', 'demo/basic', '--regoin', 'r'], field: 'arguments', error: "Unknown option '--regoin' (did you mean --region?)" },
    { name: 'a mistyped action, with the nearest', args: ['pasue', 'demo/basic'], field: 'action', error: 'unknown action "pasue" (did you mean "pause"?)' },
    { name: '-n and a namespaced ref', args: ['status', '-n', 'a', 'b/c'], field: '--namespace', error: 'both name a namespace' },
    { name: 'an output format admin has not', args: ['history', 'demo/basic', '-o', 'yaml'], field: '--output', error: '--output must be wide or json' },
    { name: 'an extra argument', args: ['status', 'demo/basic', 'demo/other'], field: 'arguments', error: 'unexpected argument "demo/other"' },
  ])('a usage error names its field: $name', ({ args, field, error }) => {
    // Act
    const parsed = parseAdminArgs(args, NO_ENV);
    // Assess
    expect(parsed).toEqual({ ok: false, field, error: expect.stringContaining(error) });
  });
});

// Times on a small scale so they read easily: t=100 s is "now".
const time: TimeFormat = { nowMs: 100_000, formatTime: (ms) => `t=${ms / 1000}s` };
const cluster = { namespace: 'demo', name: 'basic' };

describe('admin: answers as text', () => {
  it('status shows components, conditions, lease, next wake-up and deadlines', () => {
    // Prepare
    const answer = {
      ok: true,
      action: 'status',
      cluster,
      key: 'eks/demo/basic',
      status: {
        pd: { phase: 'Upgrade', synced: true, leader: { name: 'basic-pd-1' }, statefulSet: { replicas: 3, readyReplicas: 2 }, members: { 'basic-pd-0': { name: 'basic-pd-0', health: true }, 'basic-pd-1': { name: 'basic-pd-1', health: false } } },
        conditions: [{ type: 'Ready', status: 'False', reason: 'PDUnhealthy', lastTransitionTime: '2026-01-01T00:00:00Z', message: 'PD(s) are not healthy' }],
      },
      state: { fence: 7, lease: { owner: 'req-1/m-1', untilMs: 130_000 }, dirty: true, failures: 2, nextWakeAtMs: 400_000, lastStep: { atMs: 90_000, outcome: 'retry', message: 'retry in 5s: x' } },
      deadlines: [{ component: 'pd', member: 'basic-pd-1', kind: 'failover', sinceMs: 60_000, deadlineAtMs: 360_000, fence: 6 }],
    };
    // Act
    const text = formatAdminAnswer(answer, time);
    // Assess
    expect(text).toContain('TidbCluster demo/basic   (key eks/demo/basic)');
    expect(text).toMatch(/pd\s+Upgrade\s+2\/3\s+true\s+basic-pd-1\s+basic-pd-0, basic-pd-1 \(unhealthy\)/);
    expect(text).toMatch(/Ready\s+False\s+PDUnhealthy\s+2026-01-01T00:00:00Z\s+PD\(s\) are not healthy/);
    expect(text).toContain('Lease:        held by req-1/m-1 until t=130s (in 30s)');
    expect(text).toContain('Next wake-up: t=400s (in 5m)');
    expect(text).toContain('Failures:     2   (dirty: a trigger is waiting for the lease holder)');
    expect(text).toContain('Last step:    t=90s retry: retry in 5s: x');
    expect(text).toMatch(/pd\s+basic-pd-1\s+failover\s+t=60s\s+t=360s \(in 4m20s\)/);
  });

  it('status of a cluster no step has claimed says so, and an expired lease is free', () => {
    expect(formatAdminAnswer({ ok: true, action: 'status', cluster, key: 'k', status: {}, state: null, deadlines: [] }, time)).toContain('Reconciler state: none yet');
    const expired = { fence: 1, lease: { owner: 'x', untilMs: 99_000 }, dirty: false, failures: 0, nextWakeAtMs: null, lastStep: null };
    const text = formatAdminAnswer({ ok: true, action: 'status', cluster, key: 'k', status: {}, state: expired, deadlines: [] }, time);
    expect(text).toContain('Lease:        free');
    expect(text).toContain('Next wake-up: none armed');
  });

  const history = [
    { atMs: 95_000, fence: 3, trigger: 'admin:pause', outcome: 'complete', actions: ['updateStatus TidbCluster demo/basic: ok'], durationMs: 4, requestedBy: { arn: 'arn:aws:sts::123456789012:assumed-role/dba/alice', username: 'alice' }, detail: { outcome: 'complete', rules: ['Admission=complete', 'Paused=complete'] } },
    { atMs: 80_000, fence: 2, trigger: 'watch: StatefulSet demo/basic-pd changed, Pod demo/basic-pd-0 changed, Pod demo/basic-pd-1 changed', outcome: 'retry', actions: ['create Service demo/basic-pd: ok', 'create StatefulSet demo/basic-pd: ok'], durationMs: 9, detail: { outcome: 'retry in 5s: waiting for PD cluster running because every member is still starting', rules: ['Admission=complete', 'PdStatefulSet=retry'] } },
  ];

  it.each([80, 100, 120])('history fits %i columns: one line per step, the action count and the first, cells cut with …', (width) => {
    // Act
    const lines = formatAdminAnswer({ ok: true, action: 'history', cluster, key: 'k', history }, time, { wide: false, width }).split('\n');
    // Assess
    expect(lines[0]).toBe('Step history of demo/basic (newest first, 2 records)');
    expect(lines[1]).toMatch(/^TIME\s+TRIGGER\s+N\s+ACTIONS\s+OUTCOME$/);
    expect(lines).toHaveLength(4);
    for (const line of lines.slice(1)) expect(line.length).toBeLessThanOrEqual(width);
    expect(lines[2]).toMatch(/^t=95s\s+admin:pause by \S+\s+1\s+updateStatus/);
    expect(lines[3]).toMatch(/^t=80s\s+watch: StatefulSet.*…\s+2\s+create Service.*\s+retry in 5s: /);
  });

  it('history -o wide shows every rule that did not complete, every action on its own line, the caller and the duration, uncut', () => {
    // Act
    const lines = formatAdminAnswer({ ok: true, action: 'history', cluster, key: 'k', history }, time, { wide: true, width: 80 }).split('\n');
    // Assess
    expect(lines[1]).toMatch(/^TIME\s+TRIGGER\s+RULES\s+ACTIONS\s+OUTCOME\s+DURATION$/);
    expect(lines[2]).toMatch(/^t=95s\s+admin:pause\s+-\s+updateStatus TidbCluster demo\/basic: ok\s+complete\s+4ms$/);
    expect(lines[3]).toMatch(/^\s+by arn:aws:sts::123456789012:assumed-role\/dba\/alice$/);
    expect(lines[4]).toContain('watch: StatefulSet demo/basic-pd changed, Pod demo/basic-pd-0 changed, Pod demo/basic-pd-1 changed');
    expect(lines[4]).toMatch(/PdStatefulSet=retry\s+create Service demo\/basic-pd: ok\s+retry in 5s: waiting for PD cluster running because every member is still starting\s+9ms$/);
    expect(lines[5]).toMatch(/^\s+create StatefulSet demo\/basic-pd: ok$/);
    expect(lines[5]?.indexOf('create')).toBe(lines[4]?.indexOf('create'));
  });

  it.each([
    { name: 'a refusal names its field', answer: { ok: false, error: 'TidbCluster demo/x not found', field: 'cluster' }, want: 'admin: TidbCluster demo/x not found (field: cluster)' },
    { name: 'a change that was already so', answer: { ok: true, action: 'pause', cluster, key: 'k', changed: false, step: { reconcileId: 'r1', disposition: 'stepped', outcome: 'complete', actions: [], statusWritten: false } }, want: 'pause demo/basic: ok (already so; nothing written)\n  step r1: stepped, complete' },
    { name: 'a step with actions and a wake-up', answer: { ok: true, action: 'reconcile', cluster, key: 'k', step: { reconcileId: 'r2', disposition: 'stepped', outcome: 'retry', detail: 'retry in 5s: w', actions: ['create Service demo/basic-pd: ok'], statusWritten: true, nextWakeAtMs: 105_000 } }, want: 'reconcile demo/basic: ok\n  step r2: stepped, retry — retry in 5s: w\n    create Service demo/basic-pd: ok\n  next wake-up: t=105s (in 5s)' },
  ])('$name', ({ answer, want }) => {
    expect(formatAdminAnswer(answer, time)).toBe(want);
  });
});
