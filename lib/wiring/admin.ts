/**
 * The admin function's actions. Requests are validated by `parseAdminRequest`; the cluster is the
 * named TidbCluster of this runtime's Kubernetes cluster. The mutating actions (reconcile,
 * force-upgrade, pause, resume) need a verified caller — a function URL request with AWS_IAM auth —
 * that Kubernetes RBAC allows to patch that TidbCluster (`admin-auth.ts`, ADR 0015); the caller is
 * then recorded in the step's history record and log line and in a Normal Event on the TidbCluster.
 * `status` and `history` are read-only and answered to any caller Lambda let in.
 *
 * - `reconcile` runs one step now, through the same lease and fencing as queued steps: when another
 *   step holds the lease, the key is marked dirty (that step runs once more) and the answer says so.
 * - `force-upgrade` exists in TiDB Operator v1 for PD only: it sets the TidbCluster annotation
 *   `tidb.pingcap.com/force-upgrade: "true"` (resourceVersion-guarded merge patch), then steps; the
 *   answer says the annotation goes away by itself once the force upgrade is done.
 * - `pause` / `resume` set `spec.paused` true / false the same way, then step.
 * - `status` answers the TidbCluster status and the key's persisted state; `history` the key's step
 *   records, newest first.
 *
 * Every answer is data: `{ok: true, action, cluster, key, ...}` or `{ok: false, error, field?}`.
 */

import type { AccessEntries } from '../eks/port.js';
import type { KubeObject, KubePort } from '../kube/port.js';
import type { AdminInvocationEvent } from '../platform/admin-caller.js';
import { type ClusterKey, unwatchedNamespaceProblem } from '../model/key.js';
import { isMutatingAction, parseAdminRequest, type AdminAction, type AdminClusterRef, type AdminRequest } from '../platform/admin-request.js';
import { ConflictError, NotFoundError } from '../platform/errors.js';
import { FORCE_UPGRADE_REMOVED_REASON } from '../reconcile/components/pd/force-upgrade.js';
import type { Requester, StoredDeadline, StoredHistoryRecord } from '../state/port.js';
import { errorText } from '../step/error-outcome.js';
import { runStep } from '../step/run-step.js';
import { authorizeAdmin } from './admin-auth.js';
import { runRedrive, type RedriveSuccess } from './admin-redrive.js';
import { isRedrivePayload } from '../platform/redrive-request.js';
import type { DeadLetterRedrive } from '../queue/redrive.js';
import type { Fleet } from './fleet.js';
import { clusterKeyOf, deadlineOf, stepPorts, type Invocation, type Runtime } from './ports.js';
import { summariseState, toStepReport, type StateSummary, type StepReport } from './reports.js';

/** TiDB Operator's force-upgrade annotation (reference §2.10: "PD force upgrade when PD unsynced"). */
export const FORCE_UPGRADE_ANNOTATION = 'tidb.pingcap.com/force-upgrade';

/** History records returned when the request names no `limit`. */
export const DEFAULT_HISTORY_LIMIT = 20;

/** A successful answer; which optional fields are set depends on the action. */
export type AdminSuccess = {
  readonly ok: true;
  readonly action: AdminAction;
  readonly cluster: AdminClusterRef;
  readonly key: ClusterKey;
  readonly message?: string;
  /** force-upgrade, pause, resume: whether the TidbCluster had to be changed (false: already so). */
  readonly changed?: boolean;
  /** The mutating actions: the authorised caller the step, its Event and its history record name. */
  readonly requestedBy?: Requester;
  readonly step?: StepReport;
  readonly status?: unknown;
  readonly state?: StateSummary | null;
  readonly deadlines?: readonly StoredDeadline[];
  readonly history?: readonly StoredHistoryRecord[];
};

/**
 * A refused or failed request: why, and the request field at fault when there is one; `forbidden`
 * when the caller may not do it (unknown, or not allowed by RBAC): nothing was changed.
 */
export type AdminFailure = { readonly ok: false; readonly error: string; readonly field?: string; readonly forbidden?: true };

/**
 * What the admin function is built from: the runtime, the EKS cluster's access entries and the
 * dead-letter redrive (`redrive`, admin-redrive.ts), each made on first use.
 */
export type AdminDeps = {
  readonly getRuntime: () => Runtime;
  /** The access entries of the EKS cluster `k8sCluster` (default: the one cluster's). */
  readonly getAccessEntries: (k8sCluster?: string) => AccessEntries;
  readonly getRedrive?: () => DeadLetterRedrive;
  /** Every registered EKS cluster's runtime (docs/adr/0027); without it, `getRuntime`'s cluster only. */
  readonly getFleet?: () => Fleet;
};

/** The answer of a cluster action. */
export type AdminResult = AdminSuccess | AdminFailure;

/** The admin function's answer: a cluster action's, or the dead-letter redrive's. */
export type AdminAnswer = AdminResult | RedriveSuccess;

/**
 * Runs one admin request. Guarantees: never throws; every failure is an `AdminFailure`; the request
 * is validated before the runtime is asked for (`getRuntime` may throw a configuration error, which
 * is answered too), so a bad request is named as such even where nothing is configured.
 */
export async function runAdmin(deps: AdminDeps, event: Exclude<AdminInvocationEvent, { kind: 'url-error' }>, invocation: Invocation): Promise<AdminAnswer> {
  if (isRedrivePayload(event.payload)) {
    const getRedrive = deps.getRedrive ?? ((): DeadLetterRedrive => { throw new Error('this admin function was built without a dead-letter queue'); });
    return runRedrive({ ...deps, getRedrive }, event, invocation);
  }
  const parsed = parseAdminRequest(event.payload);
  if (!parsed.ok) return { ok: false, error: parsed.error.message, field: parsed.error.field };
  const request = parsed.request;
  if (isMutatingAction(request.action) && event.kind === 'direct') {
    const error = `${request.action} changes the cluster, so it needs the caller's verified identity: send it to the admin function URL, signed with your AWS credentials (\`tidb-reconciler admin … --url URL\`); a direct invoke carries no caller (status and history work either way)`;
    return { ok: false, error, forbidden: true };
  }
  let runtime: Runtime;
  try {
    const chosen = chooseRuntime(deps, request.cluster);
    if (!chosen.ok) return chosen;
    runtime = chosen.runtime;
  } catch (err) {
    return { ok: false, error: `the admin function is not configured: ${errorText(err)}` };
  }
  const unwatched = unwatchedNamespaceProblem(request.cluster, runtime.config.watchNamespaces);
  if (unwatched !== undefined) return { ok: false, error: unwatched.replace(/^key\.namespace/, 'cluster.namespace'), field: 'cluster.namespace' };
  try {
    let requester: Requester | undefined;
    if (isMutatingAction(request.action) && event.kind === 'url') {
      const kube = runtime.clients.withDeadline(deadlineOf(runtime, invocation)).kube;
      const auth = await authorizeAdmin({ accessEntries: deps.getAccessEntries(runtime.k8sCluster), kube }, event.caller, request.action, request.cluster);
      if (!auth.ok) {
        runtime.logger.warn('admin action refused', { action: request.action, cluster: `${request.cluster.namespace}/${request.cluster.name}`, caller: event.caller.arn, error: auth.error });
        return { ok: false, error: auth.error, forbidden: true };
      }
      requester = { arn: auth.requester.arn, username: auth.requester.username };
      runtime.logger.info('admin action authorised', { action: request.action, cluster: `${request.cluster.namespace}/${request.cluster.name}`, requestedBy: requester, groups: auth.requester.groups });
    }
    return await dispatch(runtime, request, invocation, requester);
  } catch (err) {
    const { namespace, name } = request.cluster;
    if (err instanceof NotFoundError) return { ok: false, error: `TidbCluster ${namespace}/${name} not found`, field: 'cluster' };
    runtime.logger.error('admin action failed', { action: request.action, cluster: `${namespace}/${name}`, error: errorText(err) });
    return { ok: false, error: `${request.action} failed: ${errorText(err)}` };
  } finally {
    runtime.metrics.flush();
  }
}

/**
 * The runtime of the EKS cluster the request names: `cluster.eksCluster` when given (refused, naming
 * the registered clusters, when it is not one), else the one registered cluster; with several
 * registered, a request naming none is refused naming the choices.
 */
function chooseRuntime(deps: AdminDeps, cluster: AdminClusterRef): { readonly ok: true; readonly runtime: Runtime } | AdminFailure {
  const runtimes = deps.getFleet?.().runtimes ?? [deps.getRuntime()];
  const names = runtimes.map((r) => r.k8sCluster);
  const named = cluster.eksCluster;
  if (named !== undefined) {
    const runtime = runtimes.find((r) => r.k8sCluster === named);
    if (runtime !== undefined) return { ok: true, runtime };
    return { ok: false, error: `cluster.eksCluster ${JSON.stringify(named)} is not an EKS cluster this deployment manages (registered: ${names.join(', ')})`, field: 'cluster.eksCluster' };
  }
  const [only, ...others] = runtimes;
  if (only !== undefined && others.length === 0) return { ok: true, runtime: only };
  return { ok: false, error: `this deployment manages several EKS clusters (${names.join(', ')}): name one, as <eks-cluster>/<namespace>/<name>`, field: 'cluster.eksCluster' };
}

async function dispatch(runtime: Runtime, request: AdminRequest, invocation: Invocation, requester: Requester | undefined): Promise<AdminResult> {
  const key = clusterKeyOf(runtime, request.cluster.namespace, request.cluster.name);
  const base = { ok: true as const, action: request.action, cluster: request.cluster, key, ...(requester === undefined ? {} : { requestedBy: requester }) };
  const kube = runtime.clients.withDeadline(deadlineOf(runtime, invocation)).kube;
  const asked: Asked = { invocation, requester };
  switch (request.action) {
    case 'reconcile': {
      // A TidbCluster gone still gets its step (which forgets the key, ADR 0006); only the Event needs it.
      const tc = await kube.getTidbCluster(request.cluster.namespace, request.cluster.name).catch((err: unknown) => {
        if (err instanceof NotFoundError) return undefined;
        throw err;
      });
      if (tc !== undefined) await recordAdminEvent(runtime, kube, tc, asked, 'AdminReconcile', 'reconcile-now');
      return stepNow(runtime, base, asked, undefined);
    }
    case 'force-upgrade':
      return forceUpgrade(runtime, kube, base, request.component, asked);
    case 'pause':
    case 'resume': {
      const paused = request.action === 'pause';
      const { changed, cluster } = await patchTidbCluster(kube, request.cluster, (tc) => (tc.spec?.paused === paused ? undefined : { spec: { paused } }));
      await recordAdminEvent(runtime, kube, cluster, asked, paused ? 'AdminPause' : 'AdminResume', `${request.action}${changed ? '' : ' (already so)'}`);
      return stepNow(runtime, { ...base, changed }, asked, changed);
    }
    case 'status': {
      const tc = await kube.getTidbCluster(request.cluster.namespace, request.cluster.name);
      const [state, deadlines] = await Promise.all([runtime.state.get(key), runtime.state.listDeadlines(key)]);
      return { ...base, status: tc.status ?? {}, state: state ? summariseState(state) : null, deadlines };
    }
    case 'history':
      return { ...base, history: await runtime.state.listHistory(key, request.limit ?? DEFAULT_HISTORY_LIMIT) };
    default: {
      const never: never = request;
      return { ok: false, error: `unknown action ${JSON.stringify(never)}`, field: 'action' };
    }
  }
}

type Base = Omit<AdminSuccess, 'step'>;

/** One request's invocation and, for a mutating action, the authorised person who asked. */
type Asked = { readonly invocation: Invocation; readonly requester: Requester | undefined };

/**
 * As TiDB Operator v1: only PD has a force upgrade (taken when PD is not synced, with the StatefulSet
 * written whole at partition 0); TiKV, TiFlash, TiDB, TiCDC and Pump always roll one member at a time.
 */
async function forceUpgrade(runtime: Runtime, kube: KubePort, base: Base, component: string, asked: Asked): Promise<AdminResult> {
  if (component !== 'pd') {
    const error = `TiDB Operator v1 has a force upgrade for PD only (annotation ${FORCE_UPGRADE_ANNOTATION} on the TidbCluster); ${component} upgrades roll one member at a time`;
    return { ok: false, error, field: 'component' };
  }
  const hasPd = (tc: KubeObject): boolean => tc.spec?.pd !== undefined && tc.spec?.pd !== null;
  const { changed, cluster } = await patchTidbCluster(kube, base.cluster, (tc) => {
    const isSet = tc.metadata.annotations?.[FORCE_UPGRADE_ANNOTATION] === 'true';
    return !hasPd(tc) || isSet ? undefined : { metadata: { annotations: { [FORCE_UPGRADE_ANNOTATION]: 'true' } } };
  });
  if (!hasPd(cluster)) return { ok: false, error: `TidbCluster ${base.cluster.namespace}/${base.cluster.name} has no PD of its own to upgrade`, field: 'component' };
  await recordAdminEvent(runtime, kube, cluster, asked, 'AdminForceUpgrade', `force-upgrade of pd${changed ? '' : ' (annotation already set)'}`);
  // Unlike TiDB Operator (whose users remove it by hand), the PdForceUpgrade rule removes the annotation.
  const message = `${FORCE_UPGRADE_ANNOTATION} is "true"; it is removed automatically (Normal event ${FORCE_UPGRADE_REMOVED_REASON}) once PD is synced and every PD pod runs the new revision`;
  return stepNow(runtime, { ...base, changed, message }, asked, changed);
}

/**
 * Runs one step for the key now. After a write (`written`) the answer is a success even when the
 * step could not run: the change is made and any later step acts on it.
 */
async function stepNow(runtime: Runtime, base: Base, asked: Asked, written: boolean | undefined): Promise<AdminResult> {
  const { invocation, requester } = asked;
  const ports = stepPorts(runtime, deadlineOf(runtime, invocation));
  const trigger = { reason: `admin:${base.action}`, ...(requester === undefined ? {} : { requestedBy: requester }) };
  const owner = `admin/${invocation.invocationId}`;
  const result = await runStep({ key: base.key, trigger, owner, ports, config: runtime.config.step, budgetMs: invocation.remainingMs() });
  const step = toStepReport(result);
  switch (result.disposition) {
    case 'stepped':
      return { ...base, step };
    case 'skipped':
    case 'superseded':
      return { ...base, step, message: joined(base.message, 'another step holds the lease: the key is marked dirty, so that step runs once more when it finishes') };
    case 'claim-failed':
    case 'rejected':
    case 'ignored':
    case 'deferred':
      if (written === undefined) return { ok: false, error: `the step did not run: ${result.errors.join('; ')}` };
      return { ...base, step, message: joined(base.message, `the change is written but the step did not run now (${result.errors.join('; ')}); the next trigger or sweep runs it`) };
    default: {
      const never: never = result.disposition;
      return { ok: false, error: `unknown step disposition ${String(never)}` };
    }
  }
}

/**
 * A Normal Event on the TidbCluster naming who asked (`kubectl describe tc` shows it), once per
 * invocation. The action is already authorised and written: a failed Event is logged, not fatal.
 */
async function recordAdminEvent(runtime: Runtime, kube: KubePort, tc: KubeObject, asked: Asked, reason: string, what: string): Promise<void> {
  const { requester, invocation } = asked;
  if (requester === undefined) return;
  const { namespace = '', name = '', uid = '' } = tc.metadata;
  const message = `${what} requested by ${requester.arn} (Kubernetes user "${requester.username}")`;
  try {
    await kube.createEvent({ involvedObject: { kind: 'TidbCluster', apiVersion: 'pingcap.com/v1alpha1', namespace, name, uid }, type: 'Normal', reason, message, occurrenceKey: invocation.invocationId });
  } catch (err) {
    runtime.logger.warn('admin event not recorded', { reason, cluster: `${namespace}/${name}`, requestedBy: requester, error: errorText(err) });
  }
}

function joined(first: string | undefined, second: string): string {
  return first === undefined ? second : `${first}; ${second}`;
}

const MAX_PATCH_ATTEMPTS = 3;

/**
 * Reads the TidbCluster and merge-patches it under the resourceVersion just read; `change` returns
 * undefined when nothing needs writing. A 409 (someone wrote in between) re-reads and tries again, a
 * few times. Returns whether a patch was written, and the TidbCluster as last read or written.
 */
async function patchTidbCluster(
  kube: KubePort,
  ref: AdminClusterRef,
  change: (tc: KubeObject) => Record<string, unknown> | undefined,
): Promise<{ changed: boolean; cluster: KubeObject }> {
  for (let attempt = 1; ; attempt++) {
    const tc = await kube.getTidbCluster(ref.namespace, ref.name);
    const patch = change(tc);
    if (patch === undefined) return { changed: false, cluster: tc };
    try {
      const written = await kube.patch('TidbCluster', ref.namespace, ref.name, patch, { resourceVersion: tc.metadata.resourceVersion ?? '' });
      return { changed: true, cluster: written };
    } catch (err) {
      if (!(err instanceof ConflictError) || attempt >= MAX_PATCH_ATTEMPTS) throw err;
    }
  }
}
