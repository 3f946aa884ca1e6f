/**
 * kubectl against `sim serve`, which authenticates every request and authorises it by RBAC
 * (ADR 0017): with infra/'s manifests applied as the README applies them, `kubectl auth can-i
 * --as … --as-group …` answers per those manifests for each function's identity, a refused request
 * gets kube-apiserver's 403, and a request without valid credentials gets 401.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import { type SimServe, startSimServe } from '../support/sim-serve.js';

const ROOT = join(import.meta.dirname, '..', '..');
const FN = 'arn:aws:sts::000000000000:assumed-role/tidb-reconciler-prod-reconcile/tidb-reconciler-prod-reconcile';
let sim: SimServe;

beforeAll(async () => {
  sim = await startSimServe('200ms');
  await sim.ok(['apply', '-f', join(ROOT, 'infra', 'k8s', 'reconciler-rbac.yaml')]);
  await sim.ok(['create', 'namespace', 'demo']);
}, 90_000);

afterAll(async () => {
  await sim.stop();
}, 30_000);

describe('kubectl auth can-i against sim serve, per infra/k8s/reconciler-rbac.yaml', () => {
  it.each([
    { group: 'tidb-reconciler', args: ['list', 'pods', '-n', 'demo'], want: 'yes' },
    { group: 'tidb-reconciler', args: ['create', 'pods', '-n', 'demo'], want: 'no' },
    // watch on pods is held only to grant it to a TidbMonitor's Prometheus (RBAC escalation); exec is not.
    { group: 'tidb-reconciler', args: ['watch', 'pods', '-n', 'demo'], want: 'yes' },
    { group: 'tidb-reconciler', args: ['create', 'pods', '--subresource', 'exec', '-n', 'demo'], want: 'no' },
    { group: 'tidb-reconciler', args: ['update', 'tidbclusters.pingcap.com', '--subresource', 'status', '-n', 'demo'], want: 'yes' },
    // The proxy path's grants are only in reconciler-rbac-api-proxy.yaml (COMPONENT_ACCESS=api-proxy).
    { group: 'tidb-reconciler', args: ['create', 'pods', '--subresource', 'proxy', '-n', 'demo'], want: 'no' },
    { group: 'tidb-reconciler', args: ['get', 'endpoints', '-n', 'demo'], want: 'yes' },
    { group: 'tidb-reconciler', args: ['delete', 'pods', '--subresource', 'proxy', '-n', 'demo'], want: 'no' },
    { group: 'tidb-reconciler', args: ['get', 'secrets/basic-cluster-client-secret', '-n', 'demo'], want: 'yes' },
    { group: 'tidb-reconciler', args: ['delete', 'persistentvolumes'], want: 'no' },
    { group: 'tidb-reconciler-exporter', args: ['watch', 'tidbclusters.pingcap.com', '-A'], want: 'yes' },
    { group: 'tidb-reconciler-exporter', args: ['watch', 'statefulsets.apps', '-n', 'demo'], want: 'yes' },
    { group: 'tidb-reconciler-exporter', args: ['get', 'secrets', '-n', 'demo'], want: 'no' },
    { group: 'tidb-reconciler-exporter', args: ['patch', 'pods', '-n', 'demo'], want: 'no' },
    { group: 'nobody', args: ['get', 'pods', '-n', 'demo'], want: 'no' },
  ])('$group: can-i $args → $want', async ({ group, args, want }) => {
    const r = await sim.kubectl(['auth', 'can-i', ...args, `--as=${FN}`, `--as-group=${group}`], { timeoutMs: 30_000 });
    expect(r.stdout.trim()).toBe(want);
    expect(r.code).toBe(want === 'yes' ? 0 : 1);
  });

  it("refuses a request the identity may not make with kube-apiserver's 403", async () => {
    const r = await sim.kubectl(['get', 'secrets', '-A', `--as=${FN}`, '--as-group=tidb-reconciler-exporter'], { timeoutMs: 30_000 });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`Error from server (Forbidden): secrets is forbidden: User "${FN}" cannot list resource "secrets" in API group "" at the cluster scope`);
  });

  it('lets a non-admin not impersonate', async () => {
    // As the reconciler's identity (impersonated by the admin), asking to impersonate further is refused.
    const r = await sim.kubectl(['auth', 'can-i', 'impersonate', 'users', `--as=${FN}`, '--as-group=tidb-reconciler'], { timeoutMs: 30_000 });
    expect(r.stdout.trim()).toBe('no');
  });

  it('answers 401 to a request without valid credentials', async () => {
    const r = await sim.kubectl(['get', 'pods', '--token=not-a-token'], { timeoutMs: 30_000 });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error: You must be logged in to the server (Unauthorized)');
  });

  it('the admin (system:masters) may do anything', async () => {
    expect((await sim.kubectl(['auth', 'can-i', '*', '*'], { timeoutMs: 30_000 })).stdout.trim()).toBe('yes');
  });
});
