/**
 * `LiveExecutor`: the Executor port over the Kubernetes API, PD, TiDB, TiCDC and Pump. It routes one
 * action to its adapter (`execute-kube.ts`, `execute-pd.ts`, `execute-tidb.ts`, `execute-ticdc.ts`)
 * and records Events once per occurrence. The engine runs the reconciler's own state actions (deadlines)
 * itself, under its fence, so they never reach this port.
 */

import type { Ec2ModifyVolumeAction, EventAction, KubeAction, RemoteAction } from '../model/action.js';
import type { Ec2Volumes } from '../ec2/port.js';
import type { ClusterKey, ClusterRef } from '../model/key.js';
import { ownedLabels } from '../model/labels.js';
import { ConflictError, TerminalError } from '../platform/errors.js';
import { errorText } from '../step/error-outcome.js';
import { controlEvent, type ControlledBy } from '../reconcile/cluster/control-events.js';
import { parseObjectKey } from '../model/object-key.js';
import { describeAction } from '../step/describe.js';
import type { ExecuteRequest, Executor } from '../step/ports.js';
import { withinBudget } from './abortable.js';
import type { ClusterClients } from './clients.js';
import { executeKube } from './execute-kube.js';
import { plainJson } from './plain-json.js';
import type { ObjectMeta } from '../kube/port.js';
import { executePd } from './execute-pd.js';
import { executeTidb } from './execute-tidb.js';
import { executePumpOffline, executeTicdcResign } from './execute-ticdc.js';
import { executeSchedule } from './execute-schedule.js';
import type { SchedulerPort } from '../timer/port.js';
import { KEPT_KINDS_WRITTEN, ObservedIndex } from './observed.js';


/**
 * Runs one action. Guarantees: resolves only when the action took effect or was verified to be
 * unnecessary; throws the adapters' typed errors otherwise (`ConflictError` for a stale
 * resourceVersion, `TerminalError` for an action no retry can make valid); gives up with the budget
 * signal's error when the step's time runs out. `index` must be the one the step's observer fills;
 * `scheduler` runs the Scheduler actions (a BackupSchedule's schedule).
 */
export class LiveExecutor implements Executor {
  constructor(
    private readonly clients: ClusterClients,
    private readonly index: ObservedIndex = new ObservedIndex(),
    private readonly scheduler?: SchedulerPort,
    private readonly ec2?: Ec2Volumes,
  ) {}

  async execute(request: ExecuteRequest): Promise<void> {
    return withinBudget(request.signal, describeAction(request.action), () => this.route(request));
  }

  private async route(request: ExecuteRequest): Promise<void> {
    const { action, key, ref, fence } = request;
    // A cluster joining another one's PD (spec.cluster) sends its PD calls to that PD.
    const pd = this.index.referencedPd(key, fence);
    const target = { namespace: pd?.namespace || ref.namespace, tcName: pd?.name ?? ref.name, tls: this.index.tls(key, fence) };
    switch (action.kind) {
      case 'create':
      case 'update':
      case 'updateStatus':
      case 'patch':
      case 'delete':
        // What the next step would take from this one's reads of these kinds is no longer what is there.
        if (KEPT_KINDS_WRITTEN.has(action.ref.kind)) this.index.dropKept(key);
        // Nor is a health step's whole read (docs/adr/0024): any write, the status's too.
        this.index.dropWhole(key);
        try {
          await executeKube(this.clients.kube, action);
        } catch (err) {
          await this.recordControlEvent(key, ref, fence, controlEvent(controlledBy(key, ref, action), action, { error: errorText(err), conflict: err instanceof ConflictError }));
          throw err;
        }
        return this.recordControlEvent(key, ref, fence, controlEvent(controlledBy(key, ref, action), action));
      case 'pd.transferLeader':
      case 'pd.transferPrimary':
      case 'pd.deleteMember':
      case 'pd.deleteStore':
      case 'pd.beginEvictLeader':
      case 'pd.endEvictLeader':
      case 'pd.setStoreLabels':
      case 'pd.setReplication':
      case 'pd.setStoreState':
        return executePd(this.clients.pd(target), action);
      case 'tidb.setLabels':
      case 'tidb.startUpgrade':
      case 'tidb.finishUpgrade':
        return executeTidb(this.clients.tidb(target), action);
      case 'ticdc.resignOwner':
        return executeTicdcResign(this.clients.ticdc(target), action);
      case 'pump.offline':
        return executePumpOffline(this.clients.pump(target), action);
      case 'tiproxy.setLabels':
        return this.clients.tiproxy(target).setLabels(action.pod, action.labels);
      case 'secret.copy':
        if (!this.clients.kube.copySecret) throw new TerminalError(`${describeAction(action)}: this Kubernetes port cannot copy Secrets`, { field: 'kind' });
        return this.clients.kube.copySecret({ ref: action.ref, metadata: plainJson<ObjectMeta>(action.metadata), sources: action.sources });
      case 'event':
        return this.recordEvent(key, ref, action, fence);
      case 'schedule.put':
      case 'schedule.delete':
        return executeSchedule(this.scheduler, action);
      case 'ec2.modifyVolume':
        return this.modifyVolume(request, action);
      default:
        return unknownAction(action);
    }
  }

  /** `ModifyVolume` through the EC2 port (a refusal's `onError` Event is the step engine's, as for every action). */
  private async modifyVolume(request: ExecuteRequest, action: Ec2ModifyVolumeAction): Promise<void> {
    if (!this.ec2) throw new TerminalError(`${describeAction(action)}: no EC2 port (the VolumeModifying gate needs the reconcile function's EC2 access)`, { field: 'FEATURE_GATES' });
    await this.ec2.modifyVolume(action.target, request.signal);
  }

  /**
   * Records the Event TiDB Operator's control records for a write (`control-events.ts`), as its
   * recorder does: best effort — an Event that cannot be recorded never fails the write it reports.
   */
  private async recordControlEvent(key: ClusterKey, ref: ClusterRef, fence: number, event: EventAction | undefined): Promise<void> {
    if (event === undefined) return;
    try {
      await this.recordEvent(key, ref, event, fence);
    } catch {
      // As client-go's recorder: Events are informational; the step's log line has the write itself.
    }
  }

  /**
   * Records an Event once per occurrence. The occurrence is the involved object's observed
   * resourceVersion: a step retried after a crash observes the same version and re-creates the same
   * Event name (AlreadyExists ⇒ already recorded), while a later change of the object makes a new
   * occurrence. An object this step's observation did not see (created by the step itself) falls
   * back to the step's fence. The Event gets the owned-object labels, so the cluster's Events can be
   * listed by them. An Event reported `once` is not recorded while the cluster's recent Events hold
   * one with its reason and message (read at the step's first such Event, see `recentEvents`).
   */
  private async recordEvent(key: ClusterKey, ref: ClusterRef, action: EventAction, fence: number): Promise<void> {
    const namespace = action.object.namespace ?? ref.namespace;
    const labels = ownedLabels(this.index.instance(key, fence) ?? ref.name);
    const recorded = action.once ? await this.recentEvents(key, fence, namespace, labels) : undefined;
    if (recorded?.has(eventIdentity(action))) return;
    const identity = this.index.identity(key, fence, action.object);
    await this.clients.kube.createEvent({
      involvedObject: {
        kind: action.object.kind,
        namespace,
        name: action.object.name,
        uid: identity?.uid ?? action.involvedUid ?? '',
        ...(identity?.apiVersion ? { apiVersion: identity.apiVersion } : {}),
        ...(identity?.resourceVersion ? { resourceVersion: identity.resourceVersion } : {}),
      },
      type: action.type,
      reason: action.reason,
      message: action.message,
      occurrenceKey: identity?.resourceVersion ? `rv:${identity.resourceVersion}` : `fence:${fence}`,
      labels,
    });
    recorded?.add(eventIdentity(action));
  }

  /**
   * The reasons and messages of the cluster's recent Events (one label-selected LIST), read once per
   * step: the index keeps them with the step's observation, and this step's own Events join them.
   */
  private recentEvents(key: ClusterKey, fence: number, namespace: string, labels: Record<string, string>): Promise<Set<string>> {
    const read = async (): Promise<Set<string>> => {
      const list = await this.clients.kube.listOwned(namespace, 'Event', labels);
      return new Set(list.items.map((e) => eventIdentity({ reason: String(e['reason'] ?? ''), message: String(e['message'] ?? '') })));
    };
    return this.index.recentEvents(key, fence, read);
  }
}

/** What makes two Events the same report: reason and message. */
function eventIdentity(event: { readonly reason: string; readonly message: string }): string {
  return `${event.reason}\n${event.message}`;
}

function unknownAction(action: never): never {
  throw new TerminalError(`unknown action ${JSON.stringify(action as RemoteAction)}`);
}

/** The custom resources whose controllers' writes are recorded on themselves, not on a TidbCluster. */
type ResourceOwner = 'TidbMonitor' | 'TidbDashboard' | 'TidbNGMonitoring';
const RESOURCE_OWNERS: ReadonlySet<string> = new Set<ResourceOwner>(['TidbMonitor', 'TidbDashboard', 'TidbNGMonitoring']);

/**
 * Whose control Events a write records: the TidbMonitor, TidbDashboard or TidbNGMonitoring its key
 * names (its uid from the written object's controller reference, so `kubectl describe` lists them),
 * else the TidbCluster.
 */
function controlledBy(key: ClusterKey, ref: ClusterRef, action: KubeAction): ControlledBy {
  const parsed = parseObjectKey(key);
  if (!parsed.ok || !RESOURCE_OWNERS.has(parsed.kind)) return ref;
  const kind = parsed.kind as ResourceOwner;
  const object = action.kind === 'create' || action.kind === 'update' ? action.object : undefined;
  const uid = object?.metadata.ownerReferences?.find((r) => r.controller === true && r.kind === kind)?.uid;
  return { ...ref, kind, ...(uid ? { uid } : {}) };
}
