/**
 * A scenario file, parsed and validated: every default applied, every duration in milliseconds,
 * every pod and node name checked against the cluster and the world it runs in. The runner reads
 * only these types; the YAML text never reaches it. See docs/SCENARIOS.md for the file format.
 */
import type { ExporterAtRest } from '../../exporter/at-rest.js';
import type { ScenarioExpect } from './expect.js';
import type { BucketSpec } from '../../sim/backup/s3.js';
import type { PodIdentityAssociation } from '../../sim/backup/pod-identity.js';
import type { FailoverPeriods } from '../../model/config.js';
import type { AccessEntry } from '../../eks/port.js';
import type { AdminAction, AdminComponent } from '../../platform/admin-request.js';
import type { JsonPath } from './jsonpath.js';
import { OBJECT_KINDS, type ObjectKind, type ScenarioObject } from './objects.js';
import type { LatencyModel } from '../latency.js';

/** The TiDB components a TidbCluster spec can hold, in spec order. */
export const COMPONENTS = ['pd', 'tikv', 'tiflash', 'tidb', 'ticdc', 'pump', 'tiproxy'] as const;

/** One of `COMPONENTS`. */
export type Component = (typeof COMPONENTS)[number];

/** The phases `status.<component>.phase` takes that a scenario can wait for (as TiDB Operator). */
export const PHASES = ['Normal', 'Upgrade', 'Scale'] as const;

/** One of `PHASES`. */
export type Phase = (typeof PHASES)[number];

/** The verbs of a timeline entry, in the order the documentation lists them. */
export const VERBS = ['waitFor', 'patch', 'annotate', 'fault', 'heal', 'world', 'admin', 'advance', 'delete', 'apply', 'deleteObject', 'mark', 'expect'] as const;

/** One of `VERBS`. */
export type Verb = (typeof VERBS)[number];

/** The faults a timeline can inject, in the order the documentation lists them. */
export const FAULT_KINDS = [
  'pod-down',
  'pod-deleted',
  'node-down',
  'image-broken',
  'pd-api-down',
  'pd-schedulers-lost',
  'pd-join-interrupted',
  'kube-api-errors',
  'step-crash',
  'duplicate-delivery',
  's3-down',
  'job-pod-killed',
  'exporter-down',
  'eks-api-down',
] as const;

/** One of `FAULT_KINDS`. */
export type FaultKind = (typeof FAULT_KINDS)[number];

/** The largest seed a file or `--seed` may give (seeds are 32-bit). */
export const MAX_SEED = 4_294_967_295;

/** A JSON value: what a manifest, a patch or an `equals` may hold (numbers are finite). */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/** Reconciler settings (`config:`), as the reconcile rules and the sweep take them. */
export type ScenarioConfig = {
  readonly autoFailover: boolean;
  /** TiDB Operator's `--detect-node-failure` (default false). */
  readonly detectNodeFailure: boolean;
  readonly failoverPeriodMs: FailoverPeriods;
  readonly sweepIntervalMs: number;
  /** As `SWEEP_SPREAD_SECONDS`: what the sweep spreads its messages over; absent, its interval (at most 15m). */
  readonly sweepSpreadMs?: number;
  /** As `API_BUDGET_REQUESTS_PER_SECOND`: the EKS cluster's API budget rate (docs/adr/0028); absent, the default (50). */
  readonly apiRequestsPerSecond?: number;
  /**
   * How the functions reach the components, as `COMPONENT_ACCESS`: `direct` (attached to the
   * cluster's VPC, the default) or `api-proxy` (outside the VPC, through the API server's proxy).
   */
  readonly componentAccess: 'direct' | 'api-proxy';
  /**
   * As `WATCH_NAMESPACES` (namespace-scoped mode): the only namespaces the functions list, watch and
   * step, under the namespaced RBAC `scripts/gen-namespaced-rbac.ts` derives; absent = every namespace.
   */
  readonly watchNamespaces?: readonly string[];
  /**
   * As `EXPORTER_AT_REST` (docs/adr/0030): `watch` (the default, every session watches its whole
   * period) or `catch-up` (after a quiet session, a session drains for seconds and ends).
   */
  readonly exporterAtRest?: ExporterAtRest;
  /**
   * As `FEATURE_GATES` (TiDB Operator's `--features`): `VolumeModifying=true` lets a StorageClass
   * change modify the claims' EBS volumes through EC2 (docs/reference/volumes.md §V5); absent = off.
   */
  readonly featureGates?: string;
};

/**
 * Simulated-world settings (`sim:`). The names match the simulator's knobs, so the runner passes
 * them on as they are.
 */
export type SimSettings = {
  /** How many nodes in all (the count form, or the pools' counts added up). */
  readonly nodes: number;
  /** The node pools, when `sim.nodes` is given as a list. */
  readonly nodePools?: readonly NodePoolSetting[];
  readonly podStartupMs: number;
  /** Region replicas a removing store hands off a minute (`storeDrainRate`, or what `storeRemoval` implies). */
  readonly storeDrainPerMinute: number;
  /** Region replicas a TiKV store holds when balanced (30 leaders a store at the default 90). */
  readonly regionsPerStore: number;
  /** The largest TiFlash replica count of any table: learner replicas each region has on TiFlash stores. */
  readonly tiflashReplicas: number;
  readonly leaderEvictionMs: number;
  readonly maxStoreDownTimeMs: number;
  /** StorageClasses a runbook creates before the cluster (`sim.storageClasses`), besides EKS's gp2 and gp3. */
  readonly storageClasses?: readonly StorageClassSetting[];
  /** The simulated S3's buckets (`sim.buckets`), none by default. */
  readonly buckets?: readonly BucketSpec[];
  /** EKS Pod Identity associations (`sim.podIdentityAssociations`): a service account's pods get the role; none by default. */
  readonly podIdentityAssociations?: readonly PodIdentityAssociation[];
  /** Writes per minute the simulated workload makes to the first cluster's dataset (`sim.workload`), none by default. */
  readonly workload?: { readonly writesPerMinute: number };
  /** Delivery latency (`sim.latency`; lib/local/latency.ts); absent means the deployed model. */
  readonly latency?: LatencyModel;
  /**
   * The EKS clusters one deployment manages (`sim.eksClusters`, docs/adr/0027), each its own API
   * server and world; absent: one, named `local`. The first holds every TidbCluster no other lists.
   */
  readonly eksClusters?: readonly EksClusterSetting[];
};

/** One simulated EKS cluster: its name (the first part of its keys) and the `clusters:` entries placed in it (`namespace/name` or `name`). */
export type EksClusterSetting = { readonly name: string; readonly tidbClusters: readonly string[] };

/** One StorageClass of `sim.storageClasses`, defaults applied. */
export type StorageClassSetting = {
  readonly name: string;
  /** Default `ebs.csi.aws.com` (provisions as gp2 does); `kubernetes.io/no-provisioner` never provisions. */
  readonly provisioner: string;
  readonly volumeBindingMode: 'Immediate' | 'WaitForFirstConsumer';
  readonly reclaimPolicy: 'Delete' | 'Retain';
  /** `allowVolumeExpansion` of the class; absent: true for an EBS CSI class (as EKS's gp2/gp3), unset otherwise. */
  readonly allowVolumeExpansion?: boolean;
  /** Static local volumes (only with `kubernetes.io/no-provisioner`): `perNode` disks of `capacity` on every node, or on the nodes of `pools`. */
  readonly localVolumes?: { readonly perNode: number; readonly capacity: string; readonly pools?: readonly string[] };
};

/** One node pool of `sim.nodes` (list form): nodes `<name>-0..<name>-(count-1)`. */
export type NodePoolSetting = {
  readonly name: string;
  readonly count: number;
  readonly labels?: Readonly<Record<string, string>>;
  readonly taints?: readonly { readonly key: string; readonly value?: string; readonly effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute' }[];
  readonly zones?: readonly string[];
};

/** The TidbCluster applied at t=0: `apiVersion`, `kind` and `metadata.namespace` always set. */
export type TidbClusterManifest = JsonObject & {
  readonly apiVersion: 'pingcap.com/v1alpha1';
  readonly kind: 'TidbCluster';
  readonly metadata: JsonObject & { readonly name: string; readonly namespace: string };
  readonly spec: JsonObject;
};

/** What a `waitFor` waits for. */
export type WaitCondition =
  | { readonly kind: 'ready' }
  | { readonly kind: 'phase'; readonly component: Component; readonly phase: Phase }
  | ({ readonly kind: 'jsonpath'; readonly path: JsonPath; readonly object?: ObjectRef } & ({ readonly equals: JsonValue } | { readonly notEquals: JsonValue } | { readonly greaterThan: string }));

/** An object a timeline entry names (`Kind/name` or `Kind/namespace/name`; the namespace defaults to the cluster's). */
export type ObjectRef = { readonly kind: RefKind; readonly namespace?: string; readonly name: string };

/** The kinds `waitFor.object` and `deleteObject` may name: those of `objects:`, and what the world makes of them. */
export const REF_KINDS = [...OBJECT_KINDS, 'TidbCluster', 'Job', 'Pod', 'PersistentVolumeClaim', 'StatefulSet', 'Lease'] as const;

/**
 * What an `expect:` entry checks at once, against what its `mark:` (`since`) recorded: `podsKept`,
 * that every pod of the first cluster's namespace at the mark still runs as the same pod (uid) with
 * no container restarted since; `reconcilerWrites`, the only Kubernetes writes the reconciler made
 * since the mark (`Kind`, or `Kind/status` for status writes only; empty: none at all).
 */
export type Expectation = { readonly since: string; readonly podsKept?: true; readonly reconcilerWrites?: readonly string[] };

/** One of `REF_KINDS`. */
export type RefKind = ObjectKind | (typeof REF_KINDS)[number];

/** A fault the timeline injects; durations in milliseconds. */
export type Fault =
  | { readonly kind: 'pod-down'; readonly pod: string }
  | { readonly kind: 'pod-deleted'; readonly pod: string }
  | { readonly kind: 'node-down'; readonly node: string }
  | { readonly kind: 'image-broken'; readonly image: string }
  | { readonly kind: 'pd-api-down'; readonly forMs: number }
  | { readonly kind: 'pd-schedulers-lost'; readonly forMs: number }
  | { readonly kind: 'pd-join-interrupted'; readonly pod: string }
  | { readonly kind: 'kube-api-errors'; readonly rate: number; readonly forMs: number }
  | { readonly kind: 'step-crash'; readonly afterActions: number; readonly times: number }
  | { readonly kind: 'duplicate-delivery'; readonly factor: number; readonly forMs: number }
  | { readonly kind: 's3-down'; readonly forMs: number }
  | { readonly kind: 'job-pod-killed'; readonly job: string }
  | { readonly kind: 'exporter-down'; readonly forMs: number }
  | { readonly kind: 'eks-api-down'; readonly eks: string; readonly forMs: number };

/** What a `heal` undoes: a `pod-down`, a `node-down` or an `image-broken` fault. */
export type HealTarget =
  | { readonly kind: 'pod'; readonly pod: string }
  | { readonly kind: 'node'; readonly node: string }
  | { readonly kind: 'image'; readonly image: string };

/** A change to the world an administrator could make by hand. */
export type WorldChange =
  | { readonly kind: 'pdLeader'; readonly pod: string }
  | { readonly kind: 'pdConfig'; readonly config: JsonObject }
  | { readonly kind: 'ticdcOwner'; readonly pod: string }
  | { readonly kind: 'tiflashReplicas'; readonly count: number };

/**
 * An admin-function invocation; `force-upgrade` names its component, `history` may limit its records;
 * `as` is the caller's IAM role or user ARN (default: the scenario operator, admin of every namespace).
 */
export type AdminStep = (
  | { readonly action: 'force-upgrade'; readonly component: AdminComponent }
  | { readonly action: 'history'; readonly limit?: number }
  | { readonly action: Exclude<AdminAction, 'force-upgrade' | 'history'> }
) & { readonly as?: string; readonly expect?: 'forbidden' };

/**
 * One timeline entry: its verb with its argument, its position, its line in the file, and the EKS
 * cluster of `sim.eksClusters` it acts on (`eks:`; absent: the first).
 */
export type TimelineEntry = { readonly index: number; readonly line?: number; readonly eks?: string } & (
  | { readonly verb: 'waitFor'; readonly until: WaitCondition; readonly timeoutMs: number }
  | { readonly verb: 'patch'; readonly patch: JsonObject }
  | { readonly verb: 'annotate'; readonly annotations: Readonly<Record<string, string | null>> }
  | { readonly verb: 'fault'; readonly fault: Fault }
  | { readonly verb: 'heal'; readonly heal: HealTarget }
  | { readonly verb: 'world'; readonly change: WorldChange }
  | { readonly verb: 'admin'; readonly admin: AdminStep }
  | { readonly verb: 'advance'; readonly durationMs: number }
  | { readonly verb: 'delete' }
  | { readonly verb: 'apply'; readonly manifest: ScenarioObject }
  | { readonly verb: 'deleteObject'; readonly object: ObjectRef }
  | { readonly verb: 'mark'; readonly name: string }
  | { readonly verb: 'expect'; readonly expect: Expectation }
);

/** A whole scenario, ready to run. */
export type Scenario = {
  readonly fileName: string;
  readonly name: string;
  readonly description: string;
  readonly seed: number;
  readonly config: ScenarioConfig;
  readonly sim: SimSettings;
  /** The cluster the timeline's verbs act on: the one of `cluster:`, or the first of `clusters:`. */
  readonly cluster: TidbClusterManifest;
  /** Every TidbCluster applied at t = 0, in order (`cluster` first; one unless the file lists `clusters:`). */
  readonly clusters: readonly TidbClusterManifest[];
  /** Secrets and ConfigMaps created at t = 0 before the cluster (`objects:`; see objects.ts), in the first EKS cluster. */
  readonly objects: readonly ScenarioObject[];
  /** `objects:` entries whose `eks:` names a further EKS cluster of `sim.eksClusters`, by its name (created there at t = 0). */
  readonly eksObjects?: Readonly<Record<string, readonly ScenarioObject[]>>;
  /** The simulated EKS cluster's access entries besides the scenario operator's (`accessEntries:`). */
  readonly accessEntries?: readonly AccessEntry[];
  readonly timeline: readonly TimelineEntry[];
  /** Bounds the run must stay within (`expect:`; see expect.ts). */
  readonly expect?: ScenarioExpect;
  /**
   * `simulate --from-kubeconfig`: the live cluster's objects (see lib/local/twin.ts), created at t = 0
   * with `cluster` (then taken from the live cluster, status included) instead of it alone.
   */
  readonly twinObjects?: readonly JsonObject[];
};

/** Whether `value` is a seed a file or `--seed` may give: a whole number from 0 to `MAX_SEED`. */
export function isSeed(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_SEED;
}

/**
 * The clusters a scenario applies, in order: `cluster` first, then the other `clusters` (so a caller
 * that replaced `cluster` with a changed copy gets that copy, and no cluster twice).
 */
export function scenarioClusters(scenario: Pick<Scenario, 'cluster' | 'clusters'>): readonly TidbClusterManifest[] {
  const same = (c: TidbClusterManifest): boolean => c.metadata.namespace === scenario.cluster.metadata.namespace && c.metadata.name === scenario.cluster.metadata.name;
  return [scenario.cluster, ...scenario.clusters.filter((c) => !same(c))];
}

/**
 * The clusters the functions watch: with `config.watchNamespaces`, those in a watched namespace
 * (the first always is, file.ts checks); else every cluster.
 */
export function watchedClusters(scenario: Pick<Scenario, 'cluster' | 'clusters' | 'config'>): readonly TidbClusterManifest[] {
  const watched = scenario.config.watchNamespaces;
  return scenarioClusters(scenario).filter((c) => watched === undefined || watched.includes(c.metadata.namespace));
}

/** The namespace of the cluster a pod name belongs to (the longest cluster name it starts with); the first cluster's when none. */
export function namespaceOfPod(scenario: Pick<Scenario, 'cluster' | 'clusters'>, pod: string): string {
  const owners = scenarioClusters(scenario).filter((c) => pod.startsWith(`${c.metadata.name}-`));
  const owner = owners.sort((a, b) => b.metadata.name.length - a.metadata.name.length)[0] ?? scenario.cluster;
  return owner.metadata.namespace;
}
