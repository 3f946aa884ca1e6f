/**
 * A converged world for one member component, built by its own rules: the objects its first step
 * creates (Services, ConfigMap, StatefulSet) as the API server would hold them, with the StatefulSet
 * at the replicas asked for and a controller status, so a test changes only what its row is about.
 */

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';

import type { TidbCluster } from '../../lib/model/kube.js';
import type { Snapshot } from '../../lib/model/snapshot.js';
import { planStep } from '../../lib/reconcile/engine/planner.js';
import type { Rule } from '../../lib/reconcile/engine/rule.js';
import { withLastApplied } from '../../lib/reconcile/member/statefulset.js';
import { snapshot, withCluster, withOwned, type Change } from './fixtures.js';

/** Options of the component's live StatefulSet. */
export type MemberSetOptions = { replicas?: number; statusReplicas?: number; revision?: string; updateRevision?: string };

/** The objects `rules` create for `tc` on an empty world, the StatefulSet set to `o`. */
export function memberWorld(rules: readonly Rule[], tc: TidbCluster, o: MemberSetOptions = {}): { changes: Change<Snapshot>[]; set: IStatefulSet } {
  const created = planStep(snapshot(withCluster(tc)), rules).actions.flatMap((a) => (a.kind === 'create' ? [a.object] : []));
  const stored = created.map((object) => ({ ...object, metadata: { ...object.metadata, resourceVersion: '50', uid: `uid-${object.metadata.name ?? ''}` } }));
  const built = stored.find((object) => object.kind === 'StatefulSet') as IStatefulSet | undefined;
  if (!built?.spec) throw new Error('the rules create no StatefulSet');
  const replicas = o.replicas ?? built.spec.replicas ?? 1;
  const strategy = built.spec.updateStrategy?.rollingUpdate ? { type: 'RollingUpdate' as const, rollingUpdate: { partition: replicas } } : built.spec.updateStrategy;
  const set: IStatefulSet = {
    ...withLastApplied({ ...built, spec: { ...built.spec, replicas, updateStrategy: strategy } }),
    status: { replicas: o.statusReplicas ?? replicas, readyReplicas: o.statusReplicas ?? replicas, currentRevision: o.revision ?? 'rev-1', updateRevision: o.updateRevision ?? o.revision ?? 'rev-1', observedGeneration: 1 },
  };
  const of = (kind: string): never[] => stored.filter((object) => object.kind === kind) as never[];
  return { changes: [withOwned('Service', ...of('Service')), withOwned('ConfigMap', ...of('ConfigMap')), withOwned('StatefulSet', set as never)], set };
}
