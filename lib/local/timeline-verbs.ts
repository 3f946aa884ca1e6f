/**
 * What each timeline verb of a scenario does to the simulated world — as a user or an admin would:
 * merge-patch or annotate the TidbCluster, inject or heal a fault, change the world (PD leader, PD
 * config), invoke the admin function, delete the cluster. Waiting and time are the runner's.
 */
import { killJobPods } from '../sim/backup/faults.js';
import { ApiError } from '../sim/api-error.js';
import { applyMergePatch } from '../sim/patch.js';
import type { KubeObject } from '../sim/object.js';
import type { SimStack } from './sim-stack.js';
import type { EksPlace } from './eks-worlds.js';
import { isCustomKind, type ScenarioObject } from './scenario/objects.js';
import { namespaceOfPod, type AdminStep, type ObjectRef, type Fault, type HealTarget, type TimelineEntry, type WorldChange } from './scenario/types.js';

/** How a verb ended: ok, or the error that failed the entry; an `admin` verb carries the function's answer. */
export type VerbResult = ({ ok: true } | { ok: false; error: string }) & { answer?: unknown };

const OK: VerbResult = { ok: true };

/**
 * Runs one non-waiting verb (everything but `waitFor` and `advance`) in the world of the EKS cluster
 * the entry names (`eks:`; absent, the first), on that cluster's TidbCluster.
 */
export async function runVerb(stack: SimStack, entry: TimelineEntry): Promise<VerbResult> {
  const place = stack.eks.place(entry.eks);
  if (place === undefined) return { ok: false, error: `EKS cluster ${entry.eks ?? ''} is not running` };
  switch (entry.verb) {
    case 'patch':
      return patchCluster(place, entry.patch);
    case 'annotate':
      return patchCluster(place, { metadata: { annotations: entry.annotations } });
    case 'fault':
      return fault(stack, place, entry.fault, entry.eks !== undefined);
    case 'heal':
      return heal(stack, place, entry.heal, entry.eks !== undefined);
    case 'world':
      return world(place, entry.change);
    case 'admin':
      return admin(stack, place, entry.admin);
    case 'delete':
      return deleteCluster(place);
    case 'apply':
      return applyObject(place, entry.manifest);
    case 'deleteObject':
      return deleteObject(stack, place, entry.object, entry.eks);
    case 'waitFor':
    case 'advance':
    case 'mark':
    case 'expect':
      return { ok: false, error: `${entry.verb} is run by the timeline loop` };
    default: {
      const never: never = entry;
      return { ok: false, error: `unknown verb ${JSON.stringify(never)}` };
    }
  }
}

/** The TidbCluster the place's cluster verbs act on (the file check makes sure an entry that needs one has one). */
function clusterRef(place: EksPlace): { namespace: string; name: string } {
  const m = place.cluster?.metadata;
  return { namespace: m?.namespace ?? '', name: m?.name ?? '' };
}

function patchCluster(place: EksPlace, patch: unknown): VerbResult {
  const { namespace, name } = clusterRef(place);
  const current = place.world.store.get('TidbCluster', namespace, name);
  if (!current) return { ok: false, error: `TidbCluster ${namespace}/${name} does not exist` };
  const next = applyMergePatch(current, patch) as KubeObject;
  try {
    // Strict, as `kubectl patch` sends it: a misspelt field fails the step instead of being pruned.
    place.world.store.update('TidbCluster', next, { fieldValidation: 'Strict' });
  } catch (err) {
    if (err instanceof ApiError) return { ok: false, error: `patch TidbCluster ${namespace}/${name}: ${err.message}` };
    throw err;
  }
  return OK;
}

function fault(stack: SimStack, place: EksPlace, f: Fault, named: boolean): VerbResult {
  // A place without a TidbCluster of its own: the faults that need none still default namespaces to the first's.
  const { name } = clusterRef(place);
  const clusterNamespace = (place.cluster ?? stack.scenario.cluster).metadata.namespace;
  // A pod is in its own cluster's namespace (with `clusters:`, not necessarily the first's).
  const namespace = 'pod' in f ? namespaceOfPod(stack.scenario, f.pod) : clusterNamespace;
  const faults = place.sim.faults;
  switch (f.kind) {
    case 'pod-down': {
      // The pod of a TidbCluster sim.eksClusters places in a further EKS cluster dies in that world
      // (the entry's own, when it names one).
      const where = named ? (place.world.store.get('Pod', namespace, f.pod) === undefined ? undefined : place) : stack.eks.podWorld(namespace, f.pod);
      if (where === undefined) return { ok: false, error: `pod ${namespace}/${f.pod} does not exist` };
      where.sim.faults.podDown(namespace, f.pod);
      return OK;
    }
    case 'pod-deleted':
      if (!place.world.store.get('Pod', namespace, f.pod)) return { ok: false, error: `pod ${namespace}/${f.pod} does not exist` };
      faults.deletePod(namespace, f.pod);
      return OK;
    case 'node-down':
      faults.nodeDown(f.node);
      return OK;
    case 'image-broken':
      faults.breakImage(f.image);
      return OK;
    case 'pd-api-down':
      faults.pdApiDown(f.forMs, { namespace, name });
      return OK;
    case 'pd-schedulers-lost':
      faults.pdSchedulersLost(f.forMs, { namespace, name });
      return OK;
    case 'pd-join-interrupted':
      // The pod's own cluster (`<tc>-pd-<ordinal>`), which with `clusters:` need not be the first.
      faults.pdJoinInterrupted({ namespace, name: f.pod.replace(/-pd-\d+$/, '') }, f.pod);
      return OK;
    case 'kube-api-errors':
      faults.kubeApiErrors(f.rate, f.forMs);
      return OK;
    case 's3-down':
      stack.sim.backups.s3.setDown(f.forMs);
      return OK;
    case 'job-pod-killed':
      return killJobPod(place, namespace, f.job);
    case 'exporter-down':
      place.exporter.down(f.forMs);
      return OK;
    case 'eks-api-down':
      return stack.eks.apiDown(f.eks, f.forMs) ? OK : { ok: false, error: `EKS cluster ${f.eks} is not running` };
    case 'step-crash':
      stack.crashes.plan = { afterActions: f.afterActions, times: f.times };
      return OK;
    case 'duplicate-delivery':
      stack.duplicate = { factor: f.factor, untilMs: stack.clock.nowMs() + f.forMs };
      return OK;
    default: {
      const never: never = f;
      return { ok: false, error: `unknown fault ${JSON.stringify(never)}` };
    }
  }
}

/** `job-pod-killed`: the Job's running pod is deleted (see lib/sim/backup/faults.ts). */
function killJobPod(place: EksPlace, namespace: string, job: string): VerbResult {
  if (killJobPods(place.world.store, namespace, job).length === 0) return { ok: false, error: `Job ${namespace}/${job} has no running pod` };
  return OK;
}

function heal(stack: SimStack, place: EksPlace, h: HealTarget, named: boolean): VerbResult {
  if (h.kind === 'pod') {
    const namespace = namespaceOfPod(stack.scenario, h.pod);
    (named ? place.sim : stack.eks.podWorld(namespace, h.pod)?.sim ?? place.sim).faults.podUp(namespace, h.pod);
  }
  else if (h.kind === 'node') place.sim.faults.nodeUp(h.node);
  else place.sim.faults.fixImage(h.image);
  return OK;
}

function world(place: EksPlace, change: WorldChange): VerbResult {
  const { namespace, name } = clusterRef(place);
  const sim = place.sim;
  try {
    if (change.kind === 'pdLeader') sim.movePdLeader(namespace, name, change.pod);
    else if (change.kind === 'ticdcOwner') sim.moveTicdcOwner(namespace, name, change.pod);
    else if (change.kind === 'tiflashReplicas') sim.setTiflashReplicas(namespace, name, change.count);
    else sim.setPdConfig(namespace, name, change.config);
    return OK;
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}

/**
 * Invokes the admin function through its URL as `step.as` (default: the scenario operator). With
 * `expect: forbidden` the entry passes only when the caller is refused (and so nothing changed).
 */
async function admin(stack: SimStack, place: EksPlace, step: AdminStep): Promise<VerbResult> {
  const { as, expect, ...request } = step;
  // With sim.eksClusters the TidbCluster is addressed in its EKS cluster (the first, unless the entry names one).
  const eksCluster = place.name ?? stack.scenario.sim.eksClusters?.[0]?.name;
  const payload = { ...request, cluster: { ...(eksCluster === undefined ? {} : { eksCluster }), ...clusterRef(place) } };
  const result = (await stack.invokeAdmin(payload, as)) as { ok?: boolean; error?: string; forbidden?: boolean } | undefined;
  if (expect === 'forbidden') {
    if (result?.ok === false && result.forbidden === true) return { ok: true, answer: result };
    return { ok: false, error: `admin ${step.action}: expected the caller to be refused, got ${JSON.stringify(result)}`, answer: result ?? null };
  }
  if (result?.ok === true) return { ok: true, answer: result };
  return { ok: false, error: `admin ${step.action}: ${result?.error ?? JSON.stringify(result)}`, answer: result ?? null };
}

function deleteCluster(place: EksPlace): VerbResult {
  const { namespace, name } = clusterRef(place);
  if (!place.world.store.get('TidbCluster', namespace, name)) return { ok: false, error: `TidbCluster ${namespace}/${name} does not exist` };
  place.world.store.delete('TidbCluster', namespace, name, { propagationPolicy: 'Background' });
  return OK;
}

/**
 * `apply:` as `kubectl apply` of one manifest: created when absent, else the manifest merged into
 * the live object (its status and what it does not name kept). TiDB Operator's resources go through
 * strict field validation, so a misspelt field fails the entry instead of being pruned.
 */
function applyObject(place: EksPlace, manifest: ScenarioObject): VerbResult {
  const { kind, metadata } = manifest;
  const store = place.world.store;
  const opts = isCustomKind(kind) ? { fieldValidation: 'Strict' as const } : {};
  const where = `${kind} ${metadata.namespace === undefined ? '' : `${metadata.namespace}/`}${metadata.name}`;
  try {
    const current = store.get(kind, metadata.namespace, metadata.name);
    if (!current) store.create(kind, structuredClone(manifest) as unknown as KubeObject, opts);
    else store.update(kind, applyMergePatch(current, structuredClone(manifest)) as KubeObject, opts);
  } catch (err) {
    if (err instanceof ApiError) return { ok: false, error: `apply ${where}: ${err.message}` };
    throw err;
  }
  return OK;
}

/** `deleteObject:` as `kubectl delete` (background propagation; finalizers are honoured). */
function deleteObject(stack: SimStack, place: EksPlace, ref: ObjectRef, eks: string | undefined): VerbResult {
  const namespace = refNamespace(stack, ref, eks);
  const where = `${ref.kind} ${namespace === undefined ? '' : `${namespace}/`}${ref.name}`;
  if (!place.world.store.get(ref.kind, namespace, ref.name)) return { ok: false, error: `${where} does not exist` };
  try {
    place.world.store.delete(ref.kind, namespace, ref.name, { propagationPolicy: 'Background' });
  } catch (err) {
    if (err instanceof ApiError) return { ok: false, error: `delete ${where}: ${err.message}` };
    throw err;
  }
  return OK;
}

/**
 * The namespace an entry's object is in: its own, else the cluster's — that of the TidbCluster of the
 * EKS cluster `eks` the entry names, if it holds one (none for cluster-scoped kinds).
 */
export function refNamespace(stack: SimStack, ref: ObjectRef, eks?: string): string | undefined {
  if (ref.kind === 'ClusterRole' || ref.kind === 'ClusterRoleBinding') return undefined;
  const cluster = eks === undefined ? stack.scenario.cluster : stack.eks.place(eks)?.cluster ?? stack.scenario.cluster;
  return ref.namespace ?? cluster.metadata.namespace;
}
