/**
 * A world for the backup-manager tests: a store with the TidbCluster and backup CRDs, TiDB
 * Operator's backup RBAC (manifests/backup/backup-rbac.yaml), the kubelet and Job controller
 * running backup-manager pods, the simulated S3 with two buckets, and a stand-in for the TiDB
 * cluster BR talks to (PD leader on or off: the BackupContext's cluster port; its etcd keys).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { VirtualClock } from '../../lib/platform/clock.js';
import { BackupSimulation } from '../../lib/sim/backup/index.js';
import { SimControllers } from '../../lib/sim/controllers/index.js';
import { backupCrds } from '../../lib/sim/crd/backup.js';
import { CRD_KIND } from '../../lib/sim/crd/registry.js';
import { tidbClusterCrd } from '../../lib/sim/crd/tidbcluster.js';
import { GarbageCollector } from '../../lib/sim/gc.js';
import { EtcdKv } from '../../lib/sim/tidb/pd-etcd.js';
import type { KubeObject } from '../../lib/sim/object.js';
import { ObjectStore } from '../../lib/sim/store.js';
import { ProxyRegistry } from '../../lib/sim/proxy.js';
import { answerMysql } from '../../lib/sim/tidb/mysql-port.js';
import { SqlAccounts } from '../../lib/sim/tidb/sql.js';

export const START_MS = Date.UTC(2026, 0, 1);
export const NS = 'demo';
export const ROLE = 'arn:aws:iam::123456789012:role/tidb-backup';
export const OTHER_ROLE = 'arn:aws:iam::123456789012:role/other';
export const KEY = { accessKey: 'AKIAEXAMPLE', secretKey: 'example' };

const RBAC = join(import.meta.dirname, '..', 'fixtures', 'tidb-operator-backup', 'backup-rbac.yaml');

/** A started world; `pdUp` switches the cluster's PD leader. */
export function backupWorld(opts: { rbac?: boolean; tls?: boolean; tidb?: boolean } = {}) {
  const clock = new VirtualClock(START_MS);
  const store = new ObjectStore(clock);
  store.create('Namespace', { metadata: { name: NS } });
  store.create(CRD_KIND, tidbClusterCrd());
  for (const crd of backupCrds()) store.create(CRD_KIND, crd);
  if (opts.rbac !== false) for (const doc of parseAllDocuments(readFileSync(RBAC, 'utf8'))) store.create(String(doc.toJS().kind), { ...doc.toJS(), metadata: { ...doc.toJS().metadata, namespace: NS } });
  store.create('TidbCluster', { metadata: { name: 'basic', namespace: NS }, spec: { ...(opts.tls ? { tlsCluster: { enabled: true } } : {}), pd: { baseImage: 'pingcap/pd', replicas: 1 }, tikv: { baseImage: 'pingcap/tikv', replicas: 1 }, tidb: { baseImage: 'pingcap/tidb', replicas: 1 } } });
  store.create('TidbCluster', { metadata: { name: 'fresh', namespace: NS }, spec: { pd: { baseImage: 'pingcap/pd', replicas: 1 }, tikv: { baseImage: 'pingcap/tikv', replicas: 1 }, tidb: { baseImage: 'pingcap/tidb', replicas: 1 } } });
  const backups = new BackupSimulation();
  backups.addBucket({ name: 'backups', region: 'us-west-2', allowRoles: [ROLE], allowKeys: [KEY] });
  backups.addBucket({ name: 'elsewhere', region: 'us-west-2', allowRoles: [OTHER_ROLE] });
  const pd = { up: true };
  const etcd = new EtcdKv();
  const view = { pd: { hasLeader: () => pd.up, stores: { list: () => [{ id: '1', alive: true }, { id: '4', alive: true }] }, etcd } };
  // With `tidb`: basic's TiDB behind the Service basic-tidb, answering MySQL on 4000 (lib/sim/tidb/mysql-port.ts).
  const proxy = new ProxyRegistry(store);
  const sql = new SqlAccounts(() => clock.nowMs());
  const tidb = { up: true };
  backups.attach({ store, clock, ...(opts.tidb ? { proxy } : {}), clusterState: (_ns, name) => (name === 'basic' || name === 'fresh' ? view : undefined) });
  const controllers = new SimControllers(store, { podStartupMs: 1000, nodes: 1, runtimes: [backups] });
  if (opts.tidb) {
    const labels = { 'app.kubernetes.io/instance': 'basic', 'app.kubernetes.io/component': 'tidb' };
    store.create('Service', { metadata: { name: 'basic-tidb', namespace: NS }, spec: { selector: labels, ports: [{ name: 'mysql-client', port: 4000 }] } });
    store.create('Pod', { metadata: { name: 'basic-tidb-0', namespace: NS, labels }, spec: { containers: [{ name: 'tidb', image: 'pingcap/tidb:v8.5.0' }] } });
    proxy.register(NS, 'basic-tidb-0', 4000, (req) => answerMysql(req, sql, () => (tidb.up ? undefined : { code: 9005, message: 'Region is unavailable' })));
  }
  const gc = new GarbageCollector(store);
  controllers.start();
  store.create('ServiceAccount', { metadata: { name: 'irsa', namespace: NS, annotations: { 'eks.amazonaws.com/role-arn': ROLE } } });
  store.create('ServiceAccount', { metadata: { name: 'other', namespace: NS, annotations: { 'eks.amazonaws.com/role-arn': OTHER_ROLE } } });
  store.create('Secret', { metadata: { name: 's3-secret', namespace: NS }, stringData: { access_key: KEY.accessKey, secret_key: KEY.secretKey } });
  store.create('Secret', { metadata: { name: 'bad-secret', namespace: NS }, stringData: { access_key: KEY.accessKey, secret_key: 'wrong' } });
  store.create('Secret', { metadata: { name: 'unknown-secret', namespace: NS }, stringData: { access_key: 'AKIANOBODY', secret_key: 'x' } });
  if (opts.rbac !== false) {
    for (const sa of ['irsa', 'other']) store.create('RoleBinding', { metadata: { name: `bm-${sa}`, namespace: NS }, subjects: [{ kind: 'ServiceAccount', name: sa }], roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'tidb-backup-manager' } });
  }
  const cr = (kind: string, name: string): KubeObject => store.mustGet(kind, NS, name);
  return { clock, store, gc, controllers, backups, pd, cr, etcd, sql, tidb };
}

/** A Backup as a user writes it, with its status at `Scheduled` as the operator leaves it before the Job starts. */
export function newBackup(store: ObjectStore, name: string, spec: Record<string, unknown>): KubeObject {
  const b = store.create('Backup', { metadata: { name, namespace: NS }, spec: { br: { cluster: 'basic' }, s3: { provider: 'aws', region: 'us-west-2', bucket: 'backups', prefix: `demo/${name}` }, ...spec } });
  return store.update('Backup', { ...b, status: { phase: 'Scheduled', conditions: [{ type: 'Scheduled', status: 'True', lastTransitionTime: b.metadata.creationTimestamp }] } });
}

/** The Job v1 builds for a backup-manager run (§1.6): backoffLimit 0, restartPolicy Never, the S3 Secret's keys as env when given. */
export function managerJob(jobName: string, args: string[], opts: { serviceAccount?: string; secret?: string; container?: string; clusterTls?: boolean; tidbSecret?: string } = {}): KubeObject {
  const password = opts.tidbSecret ? [{ name: 'BACKUP_MANAGER_PASSWORD', valueFrom: { secretKeyRef: { name: opts.tidbSecret, key: 'password' } } }] : [];
  const env = opts.secret
    ? [
        { name: 'AWS_ACCESS_KEY_ID', valueFrom: { secretKeyRef: { name: opts.secret, key: 'access_key' } } },
        { name: 'AWS_SECRET_ACCESS_KEY', valueFrom: { secretKeyRef: { name: opts.secret, key: 'secret_key' } } },
      ]
    : [];
  const volumes = opts.clusterTls ? [{ name: 'cluster-client-tls', secret: { secretName: 'basic-cluster-client-secret' } }] : [];
  return {
    metadata: { name: jobName, namespace: NS },
    spec: {
      backoffLimit: 0,
      template: {
        spec: {
          restartPolicy: 'Never',
          serviceAccountName: opts.serviceAccount ?? 'tidb-backup-manager',
          volumes,
          containers: [{ name: opts.container ?? 'backup', image: 'pingcap/tidb-backup-manager:v1.6.6', args, env: [...password, { name: 'BR_LOG_TO_TERM', value: '\u0001' }, ...env] }],
        },
      },
    },
  };
}
