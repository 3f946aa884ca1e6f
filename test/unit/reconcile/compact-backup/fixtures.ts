/**
 * Builders for CompactBackup rule tests: a CompactBackup `demo/c1` over `s3://backups/log` (IRSA, no
 * Secret), a Job, and a snapshot around them (a TiDB v9.0.0 TidbCluster `demo/basic`, no Job).
 */

import type { CreateAction } from '../../../../lib/model/action.js';
import type { TidbCluster } from '../../../../lib/model/kube.js';
import type { Plan } from '../../../../lib/model/plan.js';
import type { CompactSnapshot } from '../../../../lib/reconcile/compact-backup/snapshot.js';
import type { CompactBackup, CompactSpec, CompactStatus } from '../../../../lib/reconcile/compact-backup/types.js';
import { T0, tidbCluster, withSpec } from '../../../support/fixtures.js';

/** The TidbCluster `demo/basic` at `version` (v9.0.0 by default). */
export function cluster(version = 'v9.0.0', ...changes: ((tc: TidbCluster) => TidbCluster)[]): TidbCluster {
  return tidbCluster(withSpec({ version }), ...changes);
}

/** A CompactBackup `demo/c1` (CRD defaults filled in: concurrency 4, maxRetryTimes 6). */
export function compact(spec: Partial<CompactSpec> = {}, status?: CompactStatus): CompactBackup {
  return {
    apiVersion: 'pingcap.com/v1alpha1',
    kind: 'CompactBackup',
    metadata: { name: 'c1', namespace: 'demo', uid: 'uid-c1', resourceVersion: '11' },
    spec: {
      startTs: '2026-01-01 00:00:00',
      endTs: '2026-01-01 00:30:00',
      concurrency: 4,
      maxRetryTimes: 6,
      br: { cluster: 'basic', clusterNamespace: 'demo' },
      s3: { provider: 'aws', region: 'us-west-2', bucket: 'backups', prefix: 'log' },
      ...spec,
    },
    ...(status ? { status } : {}),
  };
}

/** A snapshot at T0 (plus `over`). */
export function snap(c: CompactBackup | undefined, over: Partial<CompactSnapshot> = {}): CompactSnapshot {
  return { nowMs: T0, compact: c, tc: cluster(), job: undefined, s3SecretKeys: undefined, managerImage: 'pingcap/tidb-backup-manager:v1.6.6', ...over };
}

/** The status the plan writes (its one `update`), or undefined when it writes none. */
export function writtenStatus(plan: Plan): CompactStatus | undefined {
  const update = plan.actions.find((a) => a.kind === 'update');
  return update?.kind === 'update' ? ((update.object as CompactBackup).status ?? {}) : undefined;
}

/** The Jobs the plan creates. */
export function created(plan: Plan): CreateAction[] {
  return plan.actions.filter((a): a is CreateAction => a.kind === 'create');
}

/** The Events of the plan as `type reason: message`. */
export function events(plan: Plan): string[] {
  return plan.actions.flatMap((a) => (a.kind === 'event' ? [`${a.type} ${a.reason}: ${a.message}`] : []));
}

export { T0 };
