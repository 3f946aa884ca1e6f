/**
 * The functions' RBAC matches the code (ADR 0017): scenarios run with the world enforcing
 * infra/k8s/reconciler-rbac.yaml, applied from the file, each function authenticated as its EKS
 * access entry. Nothing is refused, and every (verb, group, resource) the `tidb-reconciler`
 * ClusterRole grants was used by a function — except what is held only to be granted onward, each
 * with its reason. A ClusterRole without `watch` refuses the exporter's watch with kube-apiserver's
 * 403, and a scenario whose function is refused fails.
 */
import { describe, expect, it } from '@jest/globals';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { RECONCILER_RBAC_FILE, applyRbacFile, rbacObjectsOf } from '../../lib/local/function-rbac.js';
import { parseScenario } from '../../lib/local/scenario/file.js';
import { createProgress } from '../../lib/local/scenario/progress.js';
import type { Scenario } from '../../lib/local/scenario/types.js';
import { SimStack } from '../../lib/local/sim-stack.js';
import { runScenario } from '../../lib/local/simulate.js';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeWatchSource } from '../../lib/exporter/kube-source.js';
import { watchedResources } from '../../lib/exporter/resources.js';
import { RealClock } from '../../lib/platform/clock.js';
import { VirtualClock } from '../../lib/platform/clock.js';
import { usageKey } from '../../lib/sim/gate.js';
import { NotFoundError } from '../../lib/platform/errors.js';
import { SimWorld } from '../../lib/sim/world.js';
import { serviceAccountUser } from '../../lib/sim/authn.js';

const DIR = join(import.meta.dirname, '..', 'scenarios');
/** Together these reach every grant (chosen by measuring each scenario's use). */
const SCENARIOS = ['pd-failover.yaml', 'pd-tls.yaml', 'pd-admin-answers.yaml', 'ticdc-scale-in-drain.yaml', 'tikv-store-labels.yaml', 'tiflash-scale-to-zero-and-back.yaml', 'migrate-from-tidb-operator.yaml', 'monitor-ready.yaml', 'volume-resize-grow.yaml'];
/** Grants no function uses but must hold, and why. */
const HELD_TO_GRANT: Readonly<Record<string, string>> = {
  [usageKey('list', '', 'secrets')]: 'the discovery Role the reconciler creates grants it (lib/reconcile/cluster/discovery.ts); RBAC lets a subject grant only what it holds',
  [usageKey('watch', '', 'secrets')]: 'the discovery Role the reconciler creates grants it (lib/reconcile/cluster/discovery.ts); RBAC lets a subject grant only what it holds',
  [usageKey('watch', '', 'pods')]: 'the Role (or ClusterRole) a TidbMonitor gets for Prometheus grants it (lib/reconcile/monitor/objects.ts); RBAC lets a subject grant only what it holds',
};
/** Writes whose paths the scenarios do not reach: a change of a ConfigMap's, Service's or discovery object's desired form (lib/reconcile/member/apply.ts `planApply`). */
/** A cluster-scoped TidbMonitor's ClusterRole and ClusterRoleBinding are replaced only when their desired rules change. */
const UNREACHED_MONITOR_WRITES = [usageKey('update', 'rbac.authorization.k8s.io', 'clusterroles'), usageKey('update', 'rbac.authorization.k8s.io', 'clusterrolebindings')];
const UNREACHED_WRITES = ['configmaps', 'services', 'serviceaccounts', 'deployments', 'roles', 'rolebindings'].map((r) => usageKey('update', ['deployments'].includes(r) ? 'apps' : ['roles', 'rolebindings'].includes(r) ? 'rbac.authorization.k8s.io' : '', r));

/**
 * The backup controllers' grants: used by the backup, restore, compaction and schedule scenarios
 * (backup-*.yaml), which need the world's backup side (the Backup / Restore / CompactBackup /
 * BackupSchedule CRDs, its Job controller and Scheduler); the scenarios above run no Backup. `get` on
 * StatefulSets and ConfigMaps is only a PiTR Restore's; a BackupSchedule lists, creates and (by
 * retention) deletes its Backups, and creates (and by retention deletes) its CompactBackups. `list` on Restores and
 * CompactBackups is the sweep's, only while the exporter may have missed events
 * (backup-sweep-exporter-down.yaml, which fails under rbac-allows-every-call without it).
 */
const BACKUP_CONTROLLER_GRANTS = [
  usageKey('get', 'pingcap.com', 'backups'),
  usageKey('update', 'pingcap.com', 'backups'),
  usageKey('get', 'pingcap.com', 'restores'),
  usageKey('update', 'pingcap.com', 'restores'),
  usageKey('get', 'pingcap.com', 'compactbackups'),
  usageKey('update', 'pingcap.com', 'compactbackups'),
  usageKey('get', 'pingcap.com', 'tidbinitializers'),
  usageKey('update', 'pingcap.com', 'tidbinitializers'),
  usageKey('get', 'pingcap.com', 'backupschedules'),
  usageKey('list', 'pingcap.com', 'backupschedules'),
  usageKey('update', 'pingcap.com', 'backupschedules'),
  usageKey('list', 'pingcap.com', 'backups'),
  usageKey('create', 'pingcap.com', 'backups'),
  usageKey('delete', 'pingcap.com', 'backups'),
  usageKey('create', 'pingcap.com', 'compactbackups'),
  usageKey('delete', 'pingcap.com', 'compactbackups'),
  usageKey('get', 'batch', 'jobs'),
  usageKey('list', 'batch', 'jobs'),
  usageKey('create', 'batch', 'jobs'),
  usageKey('delete', 'batch', 'jobs'),
  usageKey('get', 'apps', 'statefulsets'),
  usageKey('get', '', 'configmaps'),
  usageKey('list', 'pingcap.com', 'restores'),
  usageKey('list', 'pingcap.com', 'compactbackups'),
];

/**
 * The TidbDashboard and TidbNGMonitoring controllers' own grants, used by their story
 * (dashboard-ngm-ready.yaml); `update` on Secrets only when a copied certificate changes.
 */
const COMPANION_CONTROLLER_GRANTS = [
  usageKey('get', 'pingcap.com', 'tidbdashboards'),
  usageKey('get', 'pingcap.com', 'tidbngmonitorings'),
  usageKey('update', 'pingcap.com', 'tidbdashboards/status'),
  usageKey('update', 'pingcap.com', 'tidbngmonitorings/status'),
  usageKey('create', '', 'secrets'),
];
const UNREACHED_SECRET_UPDATE = usageKey('update', '', 'secrets');

type Rule = { apiGroups: string[]; resources: string[]; verbs: string[] };

function scenario(file: string): Scenario {
  const parsed = parseScenario(readFileSync(join(DIR, file), 'utf8'), file);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.scenario;
}

function grantsOf(roleName: string): string[] {
  const role = rbacObjectsOf(RECONCILER_RBAC_FILE).find((o) => o.kind === 'ClusterRole' && o.metadata.name === roleName) as unknown as { rules: Rule[] };
  return role.rules.flatMap((r) => r.apiGroups.flatMap((g) => r.resources.flatMap((res) => r.verbs.map((v) => usageKey(v, g, res)))));
}

describe('infra RBAC against what the functions use', () => {
  it('refuses nothing, and every grant of the tidb-reconciler ClusterRole is used (or held to be granted onward)', async () => {
    const used = new Set<string>();
    for (const file of SCENARIOS) {
      const stack = await SimStack.start(scenario(file), 1);
      try {
        const run = await runScenario(stack, createProgress({ quiet: true }));
        expect({ file, violations: run.invariants.find((i) => i.name === 'rbac-allows-every-call')?.violations }).toEqual({ file, violations: [] });
        expect(run.passed).toBe(true);
        for (const keys of stack.world.gate?.usage.values() ?? []) for (const k of keys) used.add(k);
      } finally {
        await stack.stop();
      }
    }
    const unused = grantsOf('tidb-reconciler').filter((g) => !used.has(g) && HELD_TO_GRANT[g] === undefined && !UNREACHED_WRITES.includes(g) && !UNREACHED_MONITOR_WRITES.includes(g) && !BACKUP_CONTROLLER_GRANTS.includes(g) && !COMPANION_CONTROLLER_GRANTS.includes(g) && g !== UNREACHED_SECRET_UPDATE);
    expect(unused).toEqual([]);
    // Never granted: creating pods or claims (the StatefulSet controller does), deleting services.
    for (const never of [usageKey('create', '', 'pods'), usageKey('create', '', 'persistentvolumeclaims'), usageKey('delete', '', 'services')]) expect(grantsOf('tidb-reconciler')).not.toContain(never);
  }, 240_000);

  it('the TidbDashboard and TidbNGMonitoring story is refused nothing and uses every grant of their controllers', async () => {
    const used = new Set<string>();
    const stack = await SimStack.start(scenario('dashboard-ngm-ready.yaml'), 1);
    try {
      const run = await runScenario(stack, createProgress({ quiet: true }));
      expect(run.invariants.find((i) => i.name === 'rbac-allows-every-call')?.violations).toEqual([]);
      expect(run.passed).toBe(true);
      for (const keys of stack.world.gate?.usage.values() ?? []) for (const k of keys) used.add(k);
    } finally {
      await stack.stop();
    }
    expect(COMPANION_CONTROLLER_GRANTS.filter((g) => !used.has(g))).toEqual([]);
    expect(grantsOf('tidb-reconciler')).toEqual(expect.arrayContaining([...COMPANION_CONTROLLER_GRANTS, UNREACHED_SECRET_UPDATE]));
  }, 120_000);

  it.each([
    { name: 'the exporter function (its access entry\'s group)', file: RECONCILER_RBAC_FILE, user: { name: 'arn:aws:sts::000000000000:assumed-role/exp/tidb-reconciler-dev-exporter', groups: ['tidb-reconciler-exporter'] } },
    { name: 'the in-cluster exporter (its ServiceAccount, infra/k8s/exporter.yaml)', file: new URL('../../infra/k8s/exporter.yaml', import.meta.url), user: serviceAccountUser('tidb-reconciler', 'tidb-reconciler-exporter') },
  ])('$name lists and watches what it must, and its ClusterRole grants exactly that', async ({ file, user }) => {
    const world = await SimWorld.start({ clock: new RealClock(), rbac: true });
    try {
      applyRbacFile(world, file);
      const kc = new KubeConfig();
      kc.loadFromString(JSON.stringify(world.kubeconfigAs(user)));
      const source = new KubeWatchSource(kc, { clock: new RealClock() });
      for (const resource of watchedResources()) {
        // A world without the backup CRDs answers their LIST 404 — after authorising it, as kube-apiserver does.
        const page = await source.list(resource, { limit: 10 }).catch((err: unknown) => {
          if (err instanceof NotFoundError && ['Backup', 'Restore', 'CompactBackup', 'TidbInitializer', 'Job'].includes(resource.kind)) return { resourceVersion: '0' };
          throw err;
        });
        const abort = new AbortController();
        // The watch opens (authorised) and ends at once: the server's timeout is 1 s, ours aborts it.
        const events = source.watch(resource, { resourceVersion: page.resourceVersion, timeoutSeconds: 1, signal: abort.signal, onOpen: () => abort.abort() });
        await events.next().catch(() => undefined);
      }
      expect(world.gate?.denials).toEqual([]);
      expect([...(world.gate?.usage.get(user.name) ?? [])].sort()).toEqual(grantsOf('tidb-reconciler-exporter').sort());
      // Nothing else: no secrets, no writes.
      const secrets = await fetch(`${world.url}/api/v1/secrets`, { headers: { Authorization: `Bearer ${kc.getCurrentUser()?.token ?? ''}` } });
      expect(secrets.status).toBe(403);
    } finally {
      await world.stop();
    }
  }, 60_000);

  it("refuses the exporter's watch with kube-apiserver's 403 when its ClusterRole lacks watch", async () => {
    const world = await SimWorld.start({ clock: new VirtualClock(), rbac: true });
    try {
      const manifest = readFileSync(RECONCILER_RBAC_FILE, 'utf8');
      const file = join(tmpdir(), `rbac-no-watch-${process.pid}.yaml`);
      writeFileSync(file, manifest.replace(/verbs: \['list', 'watch'\]/g, "verbs: ['list']"));
      applyRbacFile(world, file);
      rmSync(file);
      const kc = new KubeConfig();
      kc.loadFromString(JSON.stringify(world.kubeconfigAs({ name: 'arn:aws:sts::000000000000:assumed-role/exp/tidb-reconciler-dev-exporter', groups: ['tidb-reconciler-exporter'] })));
      const res = await fetch(`${world.url}/apis/pingcap.com/v1alpha1/tidbclusters?watch=1`, { headers: { Authorization: `Bearer ${kc.getCurrentUser()?.token ?? ''}` } });
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'tidbclusters.pingcap.com is forbidden: User "arn:aws:sts::000000000000:assumed-role/exp/tidb-reconciler-dev-exporter" cannot watch resource "tidbclusters" in API group "pingcap.com" at the cluster scope',
        reason: 'Forbidden',
        details: { group: 'pingcap.com', kind: 'tidbclusters' },
        code: 403,
      });
      expect(world.gate?.denials.map((d) => d.attributes)).toEqual([{ kind: 'resource', verb: 'watch', apiGroup: 'pingcap.com', resource: 'tidbclusters', subresource: '', namespace: '', name: '' }]);
    } finally {
      await world.stop();
    }
  }, 60_000);

  it('fails the scenario, naming the refusal, when a function is refused', async () => {
    const file = join(tmpdir(), `rbac-no-nodes-${process.pid}.yaml`);
    // The reconciler may no longer read nodes, which TiKV store labels need.
    writeFileSync(file, readFileSync(RECONCILER_RBAC_FILE, 'utf8').replace("resources: ['nodes']", "resources: ['nodes-none']"));
    const stack = await SimStack.start(scenario('tikv-store-labels.yaml'), 1, { rbacFile: file });
    try {
      const run = await runScenario(stack, createProgress({ quiet: true }));
      expect(run.passed).toBe(false);
      const violations = run.invariants.find((i) => i.name === 'rbac-allows-every-call')?.violations ?? [];
      expect(violations[0]?.message).toMatch(/^nodes "[^"]+" is forbidden: User "arn:aws:sts::000000000000:assumed-role\/[^/]+\/tidb-reconciler-dev-reconcile" cannot get resource "nodes" in API group "" at the cluster scope$/);
    } finally {
      rmSync(file, { force: true });
      await stack.stop();
    }
  }, 120_000);

  it('refuses the discovery Role the reconciler creates when it does not hold what that Role grants (escalation prevention)', async () => {
    const file = join(tmpdir(), `rbac-no-secret-list-${process.pid}.yaml`);
    // Secrets `get` only: exactly what the reconciler itself reads, but not what its discovery Role grants.
    writeFileSync(file, readFileSync(RECONCILER_RBAC_FILE, 'utf8').replace("resources: ['secrets']\n    verbs: ['get', 'list', 'watch']", "resources: ['secrets']\n    verbs: ['get']"));
    const stack = await SimStack.start(scenario('pd-failover.yaml'), 1, { rbacFile: file });
    try {
      const run = await runScenario(stack, createProgress({ quiet: true }));
      expect(run.passed).toBe(false);
      const violations = run.invariants.find((i) => i.name === 'rbac-allows-every-call')?.violations ?? [];
      expect(violations[0]?.message).toMatch(
        /^roles\.rbac\.authorization\.k8s\.io "[^"]+-discovery" is forbidden: user "arn:aws:sts::000000000000:assumed-role\/[^/]+\/tidb-reconciler-dev-reconcile" \(groups=\["tidb-reconciler" "system:authenticated"\]\) is attempting to grant RBAC permissions not currently held:\n\{APIGroups:\[""\], Resources:\["secrets"\], Verbs:\["list" "watch"\]\}$/,
      );
    } finally {
      rmSync(file, { force: true });
      await stack.stop();
    }
  }, 120_000);

  it("binds the Lambda exporter's group to the same read-only ClusterRole the in-cluster exporter's ServiceAccount has", () => {
    const inCluster = rbacObjectsOf(new URL('../../infra/k8s/exporter.yaml', import.meta.url)).find((o) => o.kind === 'ClusterRole');
    const lambda = rbacObjectsOf(RECONCILER_RBAC_FILE).find((o) => o.kind === 'ClusterRole' && o.metadata.name === inCluster?.metadata.name);
    expect(lambda).toEqual(inCluster);
  });
});
