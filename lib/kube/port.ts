/**
 * The Kubernetes API as the step engine sees it: one label-selected LIST per owned kind, the
 * TidbCluster itself, and writes that always carry a precondition. Objects cross this port as plain
 * JSON exactly as the API server sent them (no class instances, no `Date`s), so rules can compare
 * and hash them. The adapter is `client.ts`; every method throws the typed errors of
 * `platform/errors.ts`: `NotFoundError` (404), `ConflictError` (409: stale resourceVersion, failed
 * uid precondition, or AlreadyExists — see `isAlreadyExists`), `TransientError` (429, 5xx, network,
 * timeout) and `TerminalError` (400, 403, 422, or a write refused before it was sent).
 */

/** metadata as the reconciler reads and writes it; anything else the server sends is kept as is. */
export type ObjectMeta = {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: { apiVersion: string; kind: string; name: string; uid: string; controller?: boolean; blockOwnerDeletion?: boolean }[];
  finalizers?: string[];
  [key: string]: unknown;
};

/** A Kubernetes object as plain JSON. `spec` and `status` stay loose; rules narrow what they read. */
export type KubeObject = {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  spec?: any;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  status?: any;
  [key: string]: unknown;
};

/**
 * The kinds a TidbCluster owns, each read with one label-selected LIST: per step, but Events only when
 * a step reports a persisting condition (see `LiveExecutor`).
 */
export const OWNED_KINDS = [
  'Pod',
  'StatefulSet',
  'Service',
  'ConfigMap',
  'PersistentVolumeClaim',
  'Deployment',
  'ServiceAccount',
  'Role',
  'RoleBinding',
  'Event',
] as const;

/** One of `OWNED_KINDS`. */
export type OwnedKind = (typeof OWNED_KINDS)[number];

/**
 * Every kind the port writes: the owned kinds, the TidbCluster itself, the cluster-scoped
 * PersistentVolumes bound to the cluster's claims (for those the namespace argument is ignored), and
 * the backup controllers' kinds; Secrets are only ever looked at (`ObjectReader.secretKeys`).
 */
export type KnownKind = OwnedKind | 'TidbCluster' | 'PersistentVolume' | 'Node' | 'StorageClass' | ControllerObjectKind | 'Secret' | 'Lease';

/** The kinds the backup controllers read and write besides the TidbCluster's: their resources and Jobs. */
export type ControllerObjectKind = 'Backup' | 'Restore' | 'CompactBackup' | 'BackupSchedule' | 'TidbInitializer' | 'TidbDashboard' | 'TidbNGMonitoring' | 'Job' | MonitorObjectKind;

/** What the TidbMonitor controller reads and writes besides owned kinds: the monitor, and a cluster-scoped monitor's ClusterRole and ClusterRoleBinding. */
export type MonitorObjectKind = 'TidbMonitor' | 'ClusterRole' | 'ClusterRoleBinding';

/** What `KubePort.copySecret` takes: the target Secret's identity and metadata, and where its data comes from. */
export type SecretCopySpec = {
  readonly ref: { readonly namespace?: string; readonly name: string };
  readonly metadata: ObjectMeta;
  readonly sources: readonly { readonly namespace: string; readonly name: string; readonly keyPrefix: string }[];
};

/**
 * A label selector: the query string form (`a=b,c!=d,e in (f)`) or equality pairs, which are
 * encoded as `k=v` joined by commas. An empty selector is refused: it would list the whole namespace.
 */
export type LabelSelector = string | Readonly<Record<string, string>>;

/** The items of one LIST and the list's resourceVersion (a watch can start from it). */
export type ObjectList = { items: KubeObject[]; resourceVersion: string };

/** One page of TidbClusters; `continue` is set when there are more. */
export type TidbClusterPage = ObjectList & { continue?: string };

/** Which page of the TidbCluster sweep to read; without `namespace`, all namespaces. */
export type PageRequest = { limit: number; continue?: string; namespace?: string };

/**
 * A delete's preconditions and policy. `uid` guards against deleting a namesake recreated since it
 * was observed; `resourceVersion` against deleting an object changed since then. Either mismatch
 * is a `ConflictError`.
 */
export type DeleteOptions = {
  uid?: string;
  resourceVersion?: string;
  propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  gracePeriodSeconds?: number;
};

/** What an Event is about: the object's identity as `involvedObject` records it. */
export type InvolvedObject = { kind: string; namespace: string; name: string; uid: string; apiVersion?: string; resourceVersion?: string };

/**
 * An Event to record. `occurrenceKey` names this occurrence (e.g. the step's fence or the rule's
 * epoch): the Event's name is derived from it, so recording the same occurrence twice (a retried
 * step) creates one Event, not two.
 */
export type EventInput = {
  involvedObject: InvolvedObject;
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
  occurrenceKey: string;
  labels?: Record<string, string>;
};

/**
 * The result of recording an Event: its name, whether this call created it, and for a repeat whether
 * this call counted it (false: this occurrence was counted before).
 */
export type EventRecord = { name: string; created: boolean; counted?: boolean };

/**
 * A SubjectAccessReview's question (authorization.k8s.io/v1): may `user`, with `groups`, do `verb`
 * on `resource` of API group `group` (optionally the object `name`) in `namespace`?
 */
export type AccessReview = {
  readonly user: string;
  readonly groups: readonly string[];
  readonly verb: string;
  readonly group: string;
  readonly resource: string;
  readonly namespace: string;
  readonly name?: string;
};

/**
 * The API server's answer: `allowed`; `denied` when an authorizer denied outright (RBAC never does:
 * it has no opinion); `reason` as the authorizer gave it; `evaluationError` when it could not decide.
 */
export type AccessDecision = { readonly allowed: boolean; readonly denied: boolean; readonly reason: string; readonly evaluationError?: string };

/**
 * Reads and writes against one Kubernetes API server. Reads never GET owned objects one by one;
 * writes never overwrite blindly (update, updateStatus and patch require a resourceVersion).
 */
export interface KubePort {
  /** One LIST of `kind` in `namespace` restricted by `labelSelector`, with the list's resourceVersion. */
  listOwned(namespace: string, kind: OwnedKind, labelSelector: LabelSelector): Promise<ObjectList>;
  /** The TidbCluster, or `NotFoundError`. */
  getTidbCluster(namespace: string, name: string): Promise<KubeObject>;
  /**
   * The PersistentVolumes (cluster-scoped) carrying `labelSelector`: the volumes the reconciler
   * already labelled for a cluster, in one LIST.
   */
  listPersistentVolumes(labelSelector: LabelSelector): Promise<ObjectList>;
  /** One PersistentVolume by name (a claim's volume not labelled yet), or `NotFoundError`. */
  getPersistentVolume(name: string): Promise<KubeObject>;
  /** One Node by name (the topology labels of the node a store's pod runs on), or `NotFoundError`. */
  getNode(name: string): Promise<KubeObject>;
  /** One StorageClass by name (whether a claim of a resized volume may grow), or `NotFoundError`. */
  getStorageClass(name: string): Promise<KubeObject>;
  /**
   * One label-selected LIST of Deployments in `namespace`, or in every namespace when undefined:
   * TiDB Operator's controller managers (docs/migrating-from-tidb-operator.md).
   */
  listDeployments(namespace: string | undefined, labelSelector: LabelSelector): Promise<ObjectList>;
  /** One Lease (coordination.k8s.io/v1) by name — a leader-election lock — or undefined when it does not exist. */
  getLease(namespace: string, name: string): Promise<KubeObject | undefined>;
  /** One page of TidbClusters for the sweep (pass the previous page's `continue` to go on). */
  listTidbClusters(page: PageRequest): Promise<TidbClusterPage>;
  /** Creates `obj` (kind from `obj.kind`, namespace from metadata); AlreadyExists is a `ConflictError`. */
  create(obj: KubeObject): Promise<KubeObject>;
  /** Replaces `obj`; refused with `TerminalError` before any request when it has no resourceVersion. */
  update(obj: KubeObject): Promise<KubeObject>;
  /**
   * Replaces the status through the status subresource of a kind that has one (TidbCluster,
   * TidbDashboard, TidbNGMonitoring); needs a resourceVersion too.
   */
  updateStatus(obj: KubeObject): Promise<KubeObject>;
  /**
   * A JSON merge patch (RFC 7386) carrying `metadata.resourceVersion` as its precondition: the
   * server answers 409 when the object changed since that version. Arrays are replaced whole and
   * `null` removes a key.
   */
  patch(kind: KnownKind, namespace: string, name: string, patch: Record<string, unknown>, precondition: { resourceVersion: string }): Promise<KubeObject>;
  /** Deletes with preconditions. The object may linger (grace period, finalizers): observe to know. */
  delete(kind: KnownKind, namespace: string, name: string, options: DeleteOptions): Promise<void>;
  /**
   * Records a core/v1 Event, once per occurrence (see `EventInput`); a repeat of the same report is
   * counted on the existing Event (`count`, `lastTimestamp`), as client-go's recorder does.
   */
  createEvent(event: EventInput): Promise<EventRecord>;
  /**
   * Whether the Secret exists (GET; 404 ⇒ false). Only its existence crosses this port: the
   * contents are dropped unread and never logged.
   */
  hasSecret(namespace: string, name: string): Promise<boolean>;
  /**
   * Makes a Secret hold exactly its sources' data (see `SecretCopyAction`): values are read and
   * written here and go nowhere else. Absent on ports that never copy certificates.
   */
  copySecret?(copy: SecretCopySpec): Promise<void>;
  /** Creates a SubjectAccessReview (never stored by the server) and returns its decision. */
  reviewAccess(review: AccessReview): Promise<AccessDecision>;
}

/**
 * The reads of the controllers beside the TidbCluster's (Backup, Restore): one object by name, one
 * label-selected LIST, and the key names of a Secret. Only the names of a Secret's keys cross this
 * port — never a value — so no credential can reach a snapshot, a log line or DynamoDB.
 */
export interface ObjectReader {
  /** The object, or undefined when it does not exist (404). */
  getObject(kind: KnownKind, namespace: string, name: string): Promise<KubeObject | undefined>;
  /** One label-selected LIST of `kind` in `namespace`. */
  listObjects(kind: KnownKind, namespace: string, labelSelector: LabelSelector): Promise<KubeObject[]>;
  /** The names of the Secret's data keys, or undefined when it does not exist; values are dropped unread. */
  secretKeys(namespace: string, name: string): Promise<string[] | undefined>;
}

/** Pages of every object of a kind: the sweep's listing of Backups, Restores and CompactBackups. */
export interface ObjectPager {
  /** One page of `kind` (in `page.namespace`, or every namespace); pass the previous page's `continue` to go on. */
  listObjectPage(kind: KnownKind, page: PageRequest): Promise<TidbClusterPage>;
}
