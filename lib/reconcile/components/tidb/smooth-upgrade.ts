/**
 * TiDB's smooth upgrade (TiDB ≥ 7.1), as TiDB Operator v1's `smooth_upgrade.go` (§2.4, Fixture J
 * S138, P20): before the pod spec of a version upgrade whose pair is switch-controlled is written,
 * the cluster enters upgrade mode (`POST /upgrade/start`: DDL paused) through a healthy server; once
 * the rollout is done and every member is healthy, it leaves it (`POST /upgrade/finish`).
 * The begin marker is persisted before the side effect — TidbCluster annotations
 * `tidb.pingcap.com/smooth-upgrade-{ddl-paused,source-version,target-version}`, then `…-started-at`
 * once the start call was made — and the finish step re-runs on every step until the call succeeds
 * and the marker is cleared, so an interrupted upgrade never leaves DDL paused unnoticed.
 */

import type { Action, PatchAction } from '../../../model/action.js';
import { toKubeTime } from '../../cluster/condition.js';
import { isTidbAllMembersReady } from '../../cluster/replicas.js';
import { retry } from '../../engine/outcome.js';
import type { MemberDecision, MemberInput } from '../../member/component.js';
import { nothing } from '../../member/members.js';
import { appliedTemplate } from '../../member/statefulset.js';
import { TIDB_RETRY_MS, tidbStatusOf } from './names.js';
import { classifySmoothUpgrade, imageTagOf } from './version.js';

/** TiDB Operator's smooth-upgrade annotations on the TidbCluster. */
export const SMOOTH_UPGRADE = {
  ddlPaused: 'tidb.pingcap.com/smooth-upgrade-ddl-paused',
  sourceVersion: 'tidb.pingcap.com/smooth-upgrade-source-version',
  targetVersion: 'tidb.pingcap.com/smooth-upgrade-target-version',
  startedAt: 'tidb.pingcap.com/smooth-upgrade-started-at',
} as const;

type Template = ReturnType<typeof appliedTemplate>;
const tidbTag = (template: Template): string => imageTagOf(template.spec?.containers.find((c) => c.name === 'tidb')?.image ?? '');

/** The version upgrade the desired pod spec makes (applied tag → desired tag), or undefined for none. */
export function tidbVersionUpgrade(input: MemberInput): { source: string; target: string } | undefined {
  const set = input.scope.set;
  if (!set) return undefined;
  const source = tidbTag(appliedTemplate(set));
  const target = tidbTag(input.scope.template());
  return source !== '' && target !== '' && source !== target ? { source, target } : undefined;
}

/** As TiDB Operator's `chooseHealthyTiDBOrdinal`: the pod of the lowest ordinal whose member is healthy. */
export function healthyTidbPod(input: MemberInput): string | undefined {
  const healthy = Object.values(tidbStatusOf(input).members ?? {})
    .filter((m) => m.health)
    .flatMap((m) => {
      const ordinal = input.scope.ordinalOf(m.name);
      return ordinal === undefined ? [] : [ordinal];
    });
  return healthy.length === 0 ? undefined : input.scope.podName(Math.min(...healthy));
}

function annotationPatch(input: MemberInput, annotations: Record<string, string | null>): PatchAction {
  const tc = input.cluster;
  return {
    kind: 'patch',
    ref: { kind: 'TidbCluster', namespace: tc.metadata.namespace ?? '', name: tc.metadata.name ?? '' },
    patchType: 'merge',
    patch: { metadata: { annotations } },
    resourceVersion: tc.metadata.resourceVersion ?? '',
  };
}

const CLEARED = Object.fromEntries(Object.values(SMOOTH_UPGRADE).map((key) => [key, null])) as Record<string, null>;
const stop = (actions: Action[], message: string): MemberDecision => ({ actions, outcome: retry(TIDB_RETRY_MS, message), stop: true });

/**
 * The upgrade's `beforeUpgrade` hook: undefined to go on, or the step that must come first — clear a
 * marker left by another version pair (finishing it), persist the marker of this pair, then make
 * the start call and record that it was made. Only switch-controlled pairs pause DDL (as v1).
 */
export function planSmoothUpgradeStart(input: MemberInput): MemberDecision | undefined {
  const upgrade = tidbVersionUpgrade(input);
  if (!upgrade) return undefined;
  const annotations = input.cluster.metadata.annotations ?? {};
  const paused = annotations[SMOOTH_UPGRADE.ddlPaused] === 'true';
  const matches = annotations[SMOOTH_UPGRADE.sourceVersion] === upgrade.source && annotations[SMOOTH_UPGRADE.targetVersion] === upgrade.target;
  if (paused && matches && annotations[SMOOTH_UPGRADE.startedAt] !== undefined) return undefined;
  if (!paused && classifySmoothUpgrade(upgrade.source, upgrade.target) !== 'SwitchControlled') return undefined;
  const pod = healthyTidbPod(input);
  if (pod === undefined) return stop([], `${input.cluster.metadata.name ?? ''} has no healthy TiDB pod for smooth upgrade`);
  if (paused && !matches) {
    return stop([{ kind: 'tidb.finishUpgrade', pod }, annotationPatch(input, CLEARED)], 'cleared stale TiDB smooth upgrade annotations, retry upgrade start');
  }
  if (!paused) {
    const marker = { [SMOOTH_UPGRADE.ddlPaused]: 'true', [SMOOTH_UPGRADE.sourceVersion]: upgrade.source, [SMOOTH_UPGRADE.targetVersion]: upgrade.target };
    return stop([annotationPatch(input, marker)], `TiDB smooth upgrade ${upgrade.source} → ${upgrade.target}: marker persisted`);
  }
  const started = annotationPatch(input, { [SMOOTH_UPGRADE.startedAt]: toKubeTime(input.snapshot.nowMs) });
  return stop([{ kind: 'tidb.startUpgrade', pod }, started], `TiDB smooth upgrade ${upgrade.source} → ${upgrade.target}: DDL paused through ${pod}`);
}

/**
 * The `TidbSmoothUpgradeFinish` rule, as TiDB Operator's `maybeFinishSmoothUpgrade`: while the
 * marker says DDL is paused and the rollout is done — the desired pod spec written (before that the
 * previous rollout looks done), every replica updated, phase Normal, every member healthy — finish the upgrade through a healthy server, then clear the marker (in that
 * order: a finish that fails keeps the marker, and the next step tries again).
 */
export function planSmoothUpgradeFinish(input: MemberInput): MemberDecision {
  if (input.cluster.metadata.annotations?.[SMOOTH_UPGRADE.ddlPaused] !== 'true') return nothing();
  const tidb = tidbStatusOf(input);
  const sts = tidb.statefulSet;
  // The pod spec of the upgrade must be written first: before that the old rollout looks done.
  const written = tidbVersionUpgrade(input) === undefined;
  const done = written && sts !== undefined && sts.updatedReplicas === sts.replicas && tidb.phase === 'Normal' && isTidbAllMembersReady(input.cluster.spec, input.status);
  if (!done) return nothing('TiDB smooth upgrade finishes once the rollout is done');
  const pod = healthyTidbPod(input);
  if (pod === undefined) return stop([], `${input.cluster.metadata.name ?? ''} has no healthy TiDB pod for smooth upgrade`);
  return stop([{ kind: 'tidb.finishUpgrade', pod }, annotationPatch(input, CLEARED)], `TiDB smooth upgrade finished through ${pod}: DDL resumed`);
}
