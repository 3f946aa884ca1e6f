/**
 * What a component is to the member recipe (TiDB Operator v1's `pkg/manager/member`): one plain
 * record — its name, claim, Services, config data, pod template, desired-replica formula, status
 * sync, dependencies (§1.5 as data) and hooks for what only it does. `memberBlock` (recipe.ts) turns
 * a declaration into the rules a step runs; nothing else about a component lives in member/.
 */

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IService } from 'kubernetes-models/v1/Service';

import type { Action } from '../../model/action.js';
import type { TidbCluster, TidbClusterStatus } from '../../model/kube.js';
import type { Outcome } from '../../model/outcome.js';
import type { Snapshot } from '../../model/snapshot.js';
import type { ComponentName, PdmsServiceName } from '../../model/labels.js';
import type { ScopedDecision, ScopedInput } from '../engine/block.js';
import type { StatusDecision } from '../engine/rule.js';
import type { ConfigData } from './config-data.js';
import type { MemberContext } from './context.js';
import type { PodTemplate, StatefulSetSpec } from './statefulset.js';

/** The components run as StatefulSets of members (they have `spec.<name>` and `status.<name>`). */
export type MemberName = Exclude<ComponentName, 'discovery' | PdmsServiceName>;

/**
 * What a declaration may be named: a member component, or a PD microservice (`spec.pdms[]` entry,
 * `status.pdms.<name>`), whose declaration says where its spec and status live.
 */
export type DeclaredName = MemberName | PdmsServiceName;

/** What the shared rules read of a component's spec (every `spec.<component>` has these fields). */
export type MemberSpec = {
  readonly replicas: number;
  readonly podManagementPolicy?: string;
  readonly statefulSetUpdateStrategy?: string;
  readonly configUpdateStrategy?: string;
  readonly suspendAction?: { readonly suspendStatefulSet?: boolean };
};

/** What the shared rules read of a component's status (`status.<component>`). */
export type MemberStatus = {
  readonly phase?: string;
  readonly synced?: boolean;
  readonly statefulSet?: { readonly replicas: number; readonly updateRevision?: string };
};

/** The StatefulSet as this step wants it written, once a rule chose it (undefined: no rule did). */
export type SetDraft = IStatefulSet | undefined;

/** A member rule's input: the defaulted cluster, the context computed once this step, the draft. */
export type MemberInput = ScopedInput<MemberContext, SetDraft>;

/** A member act rule's decision: actions, outcome, and optionally the StatefulSet it wants written. */
export type MemberDecision = ScopedDecision<SetDraft>;

/** A component's own act rule (a gate or an extra step), named as it appears in the log line. */
export type MemberRule = { readonly name: string; readonly plan: (input: MemberInput) => MemberDecision };

/**
 * A component that must be available before this one acts (§1.5's gate), e.g. TiKV needs PD: only
 * when the cluster has it (`spec.<name>`), judged by its own predicate over the status synced so far.
 */
export type Dependency = {
  readonly name: MemberName;
  readonly isAvailable: (tc: TidbCluster, status: TidbClusterStatus) => boolean;
};

/** A component whose phase holds this one's upgrade (§1.5's right column); `title` names it in messages. */
export type UpgradeBlocker = { readonly name: MemberName; readonly title: string; readonly phases: readonly string[] };

/** Each member component's name in messages, as TiDB Operator writes it. */
export const MEMBER_TITLES: Readonly<Record<MemberName, string>> = { pd: 'PD', tikv: 'TiKV', tiflash: 'TiFlash', tidb: 'TiDB', ticdc: 'TiCDC', pump: 'Pump', tiproxy: 'TiProxy' };

/** The blocker `name` in one of `phases` (§1.5), titled as `MEMBER_TITLES` says. */
export const blockedBy = (name: MemberName, phases: readonly string[]): UpgradeBlocker => ({ name, title: MEMBER_TITLES[name], phases });

/**
 * §1.5 as data: what must be available before the component acts, what holds its upgrade, what
 * holds every update of its StatefulSet — scaling included, creation not (Pump) — and what must be
 * available before its StatefulSet is first created, its Services and ConfigMap written before that
 * (TiFlash).
 */
export type Dependencies = {
  readonly availableBefore: readonly Dependency[];
  readonly upgradeWaitsFor: readonly UpgradeBlocker[];
  readonly writeWaitsFor?: readonly UpgradeBlocker[];
  readonly createWaitsFor?: readonly Dependency[];
};

/**
 * Where the ordinal walk of an upgrade stops: a pod to let roll, a reason to hold (with actions, and
 * the status as the hold leaves it — TiKV records a store's leader count when eviction begins), or done.
 */
export type Walk =
  | { readonly kind: 'roll'; readonly ordinal: number }
  | {
      readonly kind: 'hold';
      readonly outcome: Outcome;
      readonly actions?: readonly Action[];
      readonly status?: TidbClusterStatus;
      readonly stop?: boolean;
    }
  | { readonly kind: 'done' };

/**
 * What a scale-in needs of the component before a member goes: hold (a decision), or the actions
 * that go before its PVCs are marked (`first`) and after them (`then`), ahead of the replicas write,
 * and annotations its PVCs get besides the defer-deleting mark. `seenAtOnce`: those actions change
 * what the very next step observes (PD forgets a deleted member at the call), so it runs at once to
 * record it rather than waiting for a watch event.
 */
export type ScaleInCheck =
  | { readonly hold: MemberDecision }
  | {
      readonly first: readonly Action[];
      readonly then?: readonly Action[];
      readonly pvcAnnotations?: Readonly<Record<string, string>>;
      readonly seenAtOnce?: boolean;
    };

/**
 * What to do about a scale-in left in flight when the component no longer scales in (P14): nothing
 * in flight, finish it (the member is past saving: scale it in first), or hold with a decision (cancel).
 */
export type ScaleSettle = { readonly kind: 'none' } | { readonly kind: 'finish' } | { readonly kind: 'hold'; readonly decision: MemberDecision };

/** The component's own parts of the shared scale, failover and upgrade. */
export type MemberHooks = {
  /** Its own checks at the dependency gate (PD: the cluster client Secret); a stop there ends its block. */
  readonly gates: readonly MemberRule[];
  /** Its own rules between the ConfigMap and the scaler (PD: force upgrade). */
  readonly extra: readonly MemberRule[];
  /** Before the member of `podName` is removed by a scale-in (PD: in use, quorum, leader transfer, member delete). */
  readonly beforeScaleIn: (input: MemberInput, podName: string) => ScaleInCheck;
  /** When not scaling in: a scale-in left in flight on `podName`, the highest ordinal (TiKV: cancel or finish it). */
  readonly settleScaleIn?: (input: MemberInput, podName: string) => ScaleSettle;
  /** Before scaling out to `podName` once no defer-deleting PVC is left: a hold, or undefined (TiKV: an unmarked claim). */
  readonly beforeScaleOut?: (input: MemberInput, podName: string) => MemberDecision | undefined;
  /** Its failover (marks, replacements, recovery), on the shared bookkeeping of member/failover. */
  readonly failover: (input: MemberInput) => MemberDecision;
  /**
   * Before an unblocked upgrade writes the new pod spec or moves the partition, what must come first
   * (TiDB: the smooth-upgrade marker and start call) as a decision, or undefined to go on.
   */
  readonly beforeUpgrade?: (input: MemberInput) => MemberDecision | undefined;
  /** Before the first pod not yet updated restarts (PD: stability, quorum, leader transfer). */
  readonly beforeRestart: (input: MemberInput, ordinal: number) => Walk;
  /** Why an updated, available pod may not be left behind yet (PD: member healthy and ready), or undefined. */
  readonly updatedPodHold: (input: MemberInput, podName: string) => Outcome | undefined;
};

/** One component, declared. */
export type ComponentDeclaration = {
  /** `app.kubernetes.io/component`, `<tc>-<name>` objects, `spec.<name>`, `status.<name>` (unless said below). */
  readonly name: DeclaredName;
  /** The spec section its block reconciles, for the `Unmanaged` rule (default: `name`; PD microservices: `pdms`). */
  readonly section?: string;
  /**
   * Where its status lives, when not at `status.<name>` (PD microservices: `status.pdms.<name>`):
   * read it from a cluster status, and put a new one into it.
   */
  readonly statusAt?: {
    readonly read: (status: TidbClusterStatus) => MemberStatus | undefined;
    readonly write: (status: TidbClusterStatus, next: MemberStatus) => TidbClusterStatus;
  };
  /** How messages and rule names call it (`PD`; rules are `Pd…`). */
  readonly title: string;
  readonly ruleName: string;
  /** How soon a rule that made progress, or is polling, wants to look again. */
  readonly retryMs: number;
  /** Its spec, absent when the cluster has none. */
  readonly specOf: (tc: TidbCluster) => MemberSpec | undefined;
  /** Its data claim: the claim template `<claim>` names PVCs `<claim>-<tc>-<name>-<ordinal>`. */
  readonly claim: string;
  /** True when its pods may have no PVC at all (TiDB keeps no data): a scale-in then marks nothing. */
  readonly claimsOptional?: boolean;
  /** Its volume claim templates (the data claim first). */
  readonly claimTemplates: (tc: TidbCluster) => NonNullable<StatefulSetSpec['volumeClaimTemplates']>;
  /** Its Services, in the order they are written. */
  readonly services: (tc: TidbCluster) => readonly IService[];
  /**
   * Its ConfigMap data; `tomlKeys` are compared semantically. `overlay`, when given, is what other
   * objects add to that data (TiKV's PiTR `gc.ratio-threshold`, components/tikv/pitr-gc.ts): the
   * ConfigMap is named by `data` alone and the overlay written in place, as v1 applies it after naming.
   */
  readonly config: {
    readonly data: (tc: TidbCluster) => ConfigData;
    readonly tomlKeys: readonly string[];
    readonly overlay?: (tc: TidbCluster, snapshot: Snapshot, live: ConfigData | undefined) => ConfigData;
  };
  /** Its pod template (container included), mounting ConfigMap `configMap` as volume `config`. */
  readonly podTemplate: (tc: TidbCluster, configMap: string) => PodTemplate;
  /** The replicas its StatefulSet should have for this status (spec + failover replacements + spares). */
  readonly desiredReplicas: (tc: TidbCluster, status: TidbClusterStatus) => number;
  /** Its status sync (runs on every step, paused or not). */
  readonly syncStatus: (input: MemberInput) => StatusDecision;
  /** Whether its status is synced, when `status.<name>.synced` does not say (TiDB's status has no such field). */
  readonly isSynced?: (input: MemberInput) => boolean;
  /** As TiDB Operator v1's PD: a new StatefulSet is followed by a requeue until the component runs. */
  readonly requeueAfterCreate: boolean;
  readonly dependencies: Dependencies;
  readonly hooks: MemberHooks;
  /** The headless Service its StatefulSet names (default `<tc>-<name>-peer`). */
  readonly serviceNameOf?: (tc: TidbCluster) => string;
  /**
   * `partition` (default): the upgrade walks the partition down one pod at a time; `native`: a
   * RollingUpdate without partition, so the StatefulSet controller rolls the pods itself.
   */
  readonly rollingUpdate?: 'partition' | 'native';
  /**
   * Whether scaling and upgrading refuse while `status.<name>.synced` is not true, as TiDB Operator's
   * PD and store scalers and upgraders (default true); some components' do not look at it.
   */
  readonly changesNeedSynced?: boolean;
  /** The TidbCluster annotation with an updated pod's min-ready seconds (default `tidb.pingcap.com/<name>-min-ready-seconds`). */
  readonly minReadySecondsAnnotation?: string;
  /** Pod management when neither the component nor the cluster spec asks (default Parallel). */
  readonly defaultPodManagementPolicy?: 'OrderedReady' | 'Parallel';
};
