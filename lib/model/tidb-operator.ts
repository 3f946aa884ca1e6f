/**
 * TiDB Operator v1 as another manager of the same TidbClusters: what its controller manager looks
 * like in a cluster, what a step reads of it, and the rule that says whether it still runs.
 *
 * Facts (pingcap/tidb-operator release-1.6): the Helm chart's Deployment is `tidb-controller-manager`
 * (or `tidb-controller-manager-<release>` with `appendReleaseSuffix`) in the release namespace,
 * labelled `app.kubernetes.io/component: controller-manager` and `app.kubernetes.io/name:
 * tidb-operator` (charts/tidb-operator/templates/controller-manager-deployment.yaml); its container
 * runs `tidb-controller-manager -cluster-scoped=<clusterScoped>` (chart default true). The process
 * elects a leader (cmd/controller-manager/main.go) on a `leases` lock (pkg/controller/dependences.go,
 * `ResourceLock: resourcelock.LeasesResourceLock`) named like the Deployment, in the namespace of
 * its own pod (`NAMESPACE` from the downward API), with LeaseDuration 15 s, RenewDeadline 10 s,
 * RetryPeriod 2 s, and does not release it on exit (`klog.Fatal` on lost leadership, no
 * `ReleaseOnCancel`): a stopped operator's Lease simply stops being renewed. A cluster-scoped
 * operator manages TidbClusters in every namespace; with `-cluster-scoped=false` only those of its
 * own namespace (its informers watch `NAMESPACE` only). Its writes carry client-go's default
 * User-Agent (`rest.DefaultKubernetesUserAgent()`: the binary's name first), so the API server
 * records them in `metadata.managedFields` under the manager `tidb-controller-manager`.
 */

import type { DeadlineSpec } from './action.js';

/** The label selector of TiDB Operator's controller-manager Deployment (its chart's labels). */
export const OPERATOR_DEPLOYMENT_SELECTOR = 'app.kubernetes.io/component=controller-manager,app.kubernetes.io/name=tidb-operator';

/** The name (or name prefix, `-<release>`) of the controller manager's Deployment and its Lease. */
export const OPERATOR_NAME = 'tidb-controller-manager';

/**
 * The TidbCluster annotation by which a user tells the reconciler to act even though a TiDB Operator
 * manages the cluster too (`"true"`; any other value, or none, does not).
 */
export const TAKE_OVER_ANNOTATION = 'tidb-reconciler/take-over';

/** client-go's leader-election lease duration, TiDB Operator's default: a lease not renewed for this long is free. */
export const DEFAULT_LEASE_DURATION_MS = 15_000;

/** While an operator runs, how long a verdict holds before the reconciler looks again (slow: no retry storm). */
export const RECHECK_WHILE_RUNNING_MS = 60_000;

/**
 * While none runs, how long a verdict holds: no timer is armed for it, the first step after it reads
 * again. A backstop only (docs/adr/0024): an operator that starts is seen by the exporter's watch of
 * controller-manager Deployments, which steps the clusters it may manage with a re-check at once, and
 * while the exporter may have missed events the sweep's full steps re-check too — so at rest a
 * cluster lists Deployments once per this interval (the sweep's full-read interval, 3 h), not every
 * few minutes.
 */
export const RECHECK_WHILE_ABSENT_MS = 3 * 60 * 60_000;

/** A Deployment as far as telling a controller manager goes: its name and its first container's command and args. */
export type DeploymentLike = {
  readonly metadata: { readonly name?: string };
  readonly spec?: Readonly<Record<string, unknown>>;
};

/** A Deployment named as the chart names the controller manager (`tidb-controller-manager[-<release>]`). */
export function isControllerManager(d: DeploymentLike): boolean {
  const name = d.metadata.name ?? '';
  return name === OPERATOR_NAME || name.startsWith(`${OPERATOR_NAME}-`);
}

/**
 * `-cluster-scoped` of its first container's command or args (Go's flag package: `-x`, `--x`,
 * `-x=false`; a bool flag takes no separate value). Absent, TiDB Operator's default: true.
 */
export function clusterScopedOf(d: DeploymentLike): boolean {
  const template = d.spec?.template as { spec?: { containers?: unknown[] } } | undefined;
  const container = template?.spec?.containers?.[0] as { command?: unknown; args?: unknown } | undefined;
  const words = [...asStrings(container?.command), ...asStrings(container?.args)];
  let scoped = true;
  for (const word of words) {
    const m = /^--?cluster-scoped(?:=(.*))?$/.exec(word);
    if (m) scoped = m[1] === undefined || !['false', '0', 'f', 'F', 'FALSE', 'False'].includes(m[1]);
  }
  return scoped;
}

function asStrings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** One controller-manager Deployment as a step read it, with the Lease named like it (when it exists). */
export type ObservedOperator = {
  readonly namespace: string;
  readonly name: string;
  /** `status.readyReplicas` (0 when absent). */
  readonly readyReplicas: number;
  /** Whether it manages every namespace (`-cluster-scoped`, default true) or only its own. */
  readonly clusterScoped: boolean;
  /** Its leader-election Lease, when one of that name exists in its namespace. */
  readonly lease?: ObservedLease;
};

/** A leader-election Lease: who holds it, when it was last renewed, for how long. */
export type ObservedLease = {
  readonly holderIdentity?: string;
  readonly renewTimeMs?: number;
  readonly leaseDurationMs?: number;
};

/**
 * What one step read of TiDB Operator: the controller managers found (in every namespace, or only in
 * the cluster's when the reconciler may not list Deployments cluster-wide: `scope`).
 */
export type OperatorObservation = {
  readonly operators: readonly ObservedOperator[];
  readonly scope: 'cluster' | 'namespace';
};

/** The verdict: the running operator that manages the cluster, and why it counts as running. */
export type OperatorVerdict =
  | { readonly running: false }
  | { readonly running: true; readonly operator: ObservedOperator; readonly evidence: string };

/** Whether a Lease is held now: a holder, renewed less than its duration ago (client-go's `IsLeader` test). */
export function leaseHeld(lease: ObservedLease | undefined, nowMs: number): boolean {
  if (lease?.holderIdentity === undefined || lease.holderIdentity === '' || lease.renewTimeMs === undefined) return false;
  return nowMs < lease.renewTimeMs + (lease.leaseDurationMs ?? DEFAULT_LEASE_DURATION_MS);
}

/**
 * The rule. Guarantees: an operator counts when it manages `namespace` (cluster-scoped, or in that
 * namespace) and runs — its Deployment has a ready replica, or its Lease is held (a pod that is
 * stopping still leads until its lease runs out); the first such operator in name order is named.
 */
export function detectOperator(observation: OperatorObservation, namespace: string, nowMs: number): OperatorVerdict {
  const managing = observation.operators
    .filter((op) => op.clusterScoped || op.namespace === namespace)
    .sort((a, b) => `${a.namespace}/${a.name}`.localeCompare(`${b.namespace}/${b.name}`));
  for (const operator of managing) {
    const held = leaseHeld(operator.lease, nowMs);
    if (operator.readyReplicas > 0 || held) {
      const parts = [
        ...(operator.readyReplicas > 0 ? [`${operator.readyReplicas} ready replica${operator.readyReplicas === 1 ? '' : 's'}`] : []),
        ...(held ? [`Lease ${operator.namespace}/${operator.name} held by ${operator.lease?.holderIdentity ?? ''}`] : []),
      ];
      return { running: true, operator, evidence: parts.join(', ') };
    }
  }
  return { running: false };
}

/** The persisted verdict's identity in the state item (a deadline: its `deadlineAtMs` is the re-check). */
export const VERDICT_COMPONENT = 'cluster';

/** The member of the verdict's deadline. */
export const VERDICT_MEMBER = 'tidb-operator';

/** The two verdicts, as the deadline kinds that carry them. */
export const VERDICT_KIND = { running: 'operatorRunning', absent: 'operatorAbsent' } as const;

/** The persisted verdict among a key's deadlines, if any. */
export function cachedVerdict(deadlines: readonly DeadlineSpec[]): DeadlineSpec | undefined {
  return deadlines.find((d) => d.component === VERDICT_COMPONENT && d.member === VERDICT_MEMBER && (d.kind === VERDICT_KIND.running || d.kind === VERDICT_KIND.absent));
}

/**
 * Whether a step must read TiDB Operator: no verdict persisted yet, or its re-check time has come.
 * A cluster annotated to take over never needs it.
 */
export function operatorCheckDue(deadlines: readonly DeadlineSpec[], nowMs: number, annotations: Readonly<Record<string, string>> | undefined): boolean {
  if (annotations?.[TAKE_OVER_ANNOTATION] === 'true') return false;
  const cached = cachedVerdict(deadlines);
  return cached === undefined || nowMs >= cached.deadlineAtMs;
}

/** The field manager the API server records for TiDB Operator's writes (its User-Agent's first part). */
export const OPERATOR_FIELD_MANAGER = 'tidb-controller-manager';

/** The field manager of the reconciler's writes (the User-Agent it sends, lib/kube/http.ts). */
export const RECONCILER_FIELD_MANAGER = 'tidb-reconciler';

/**
 * How recent a write by TiDB Operator must be to show it still acts: v1 writes only what changes, so
 * an old entry shows only that it once managed the cluster (every migrated cluster has them).
 */
export const RECENT_WRITE_MS = 5 * 60_000;

/** An object as far as its writers go: its kind, name and `metadata.managedFields`. */
export type WrittenObject = { readonly kind?: string; readonly metadata?: { readonly name?: string; readonly managedFields?: unknown } };

/** A write by TiDB Operator that shows it still acts on the cluster: which object, when. */
export type OperatorWrite = { readonly object: string; readonly atMs: number };

type Entry = { manager?: unknown; time?: unknown; subresource?: unknown };

/**
 * The second sign of a running TiDB Operator: a write recorded under its field manager on one of
 * `objects` (the TidbCluster, its StatefulSets) less than `RECENT_WRITE_MS` ago and later than the
 * reconciler's last write of that object — not counting the reconciler's writes of a TidbCluster's
 * status, which a refusal makes itself (its condition), so a refusal never lifts itself. The latest
 * such write, or undefined.
 */
export function operatorWrite(objects: readonly WrittenObject[], nowMs: number): OperatorWrite | undefined {
  let latest: OperatorWrite | undefined;
  for (const o of objects) {
    const entries = Array.isArray(o.metadata?.managedFields) ? (o.metadata.managedFields as Entry[]) : [];
    const times = (keep: (e: Entry) => boolean): number[] => entries.filter(keep).map((e) => (typeof e.time === 'string' ? Date.parse(e.time) : NaN)).filter(Number.isFinite);
    const theirs = Math.max(...times((e) => e.manager === OPERATOR_FIELD_MANAGER));
    const ours = Math.max(...times((e) => e.manager === RECONCILER_FIELD_MANAGER && !(o.kind === 'TidbCluster' && e.subresource === 'status')));
    if (!Number.isFinite(theirs) || theirs <= ours || nowMs - theirs >= RECENT_WRITE_MS) continue;
    if (latest === undefined || theirs > latest.atMs) latest = { object: `${o.kind ?? 'object'} ${o.metadata?.name ?? ''}`, atMs: theirs };
  }
  return latest;
}

