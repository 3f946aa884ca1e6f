/**
 * The Restore controller as a deployment runs it: its reads (the Restore, its TidbCluster, its Jobs,
 * the key names of its S3 Secret, the TiKV config's `gc.ratio-threshold` for the PiTR gate, and — before
 * its Job exists — whether the target's TiDB lists user tables) and the Restore recipe to decide.
 */

import { parse as parseToml } from 'smol-toml';

import type { TidbSchemaPort } from '../components/tidb-schema.js';
import type { ObjectReader } from '../kube/port.js';
import type { TidbCluster } from '../model/kube.js';
import type { Job, Restore } from '../reconcile/backup/types.js';
import { DEFAULT_BACKUP_MANAGER_IMAGE } from '../reconcile/backup/job.js';
import { isTlsCluster } from '../reconcile/cluster/tls.js';
import { planRestore } from '../reconcile/restore/recipe.js';
import type { RestoreSnapshot, TargetData } from '../reconcile/restore/snapshot.js';
import { observeWith, type Controller } from '../step/controller.js';
import { errorText } from '../step/error-outcome.js';
import { byName } from './backup-controller.js';
import type { ClusterTarget } from './clients.js';

/** What the Restore controller is built with. */
export type RestoreControllerOptions = {
  readonly objects: ObjectReader;
  readonly schema?: (target: ClusterTarget) => TidbSchemaPort;
  readonly managerImage?: string;
};

/** The Restore controller. */
export function restoreController(options: RestoreControllerOptions): Controller<RestoreSnapshot> {
  return {
    kind: 'Restore',
    observe: (ctx) => observeWith(() => observeRestore(options, ctx.ref.namespace, ctx.ref.name, () => ctx.ports.clock.nowMs())),
    decide: planRestore,
    subject: (snap) => ({ cluster: undefined, gone: snap.restore === undefined }),
  };
}

async function observeRestore(options: RestoreControllerOptions, ns: string, name: string, now: () => number): Promise<RestoreSnapshot> {
  const { objects } = options;
  const managerImage = options.managerImage ?? DEFAULT_BACKUP_MANAGER_IMAGE;
  const empty = { tc: undefined, jobs: {}, s3SecretKeys: undefined, targetData: { kind: 'unknown', why: 'not read' } as TargetData, tikvGcRatioThreshold: undefined, managerImage };
  const restore = (await objects.getObject('Restore', ns, name)) as Restore | undefined;
  if (restore === undefined) return { nowMs: now(), restore, ...empty };
  const br = restore.spec?.br;
  const tcNs = br?.clusterNamespace || ns;
  const [tc, jobs, s3SecretKeys, tidbSecretKeys] = await Promise.all([
    br?.cluster ? (objects.getObject('TidbCluster', tcNs, br.cluster) as Promise<TidbCluster | undefined>) : Promise.resolve(undefined),
    objects.listObjects('Job', ns, { 'tidb.pingcap.com/restore': name }),
    restore.spec?.s3?.secretName ? objects.secretKeys(ns, restore.spec.s3.secretName) : Promise.resolve(undefined),
    restore.spec?.to?.secretName ? objects.secretKeys(ns, restore.spec.to.secretName) : Promise.resolve(undefined),
  ]);
  const jobsByName = byName(jobs as Job[]);
  // Once its Job exists the restore itself writes data: the target is asked only before.
  const before = jobsByName[`restore-${name}`] === undefined && tc !== undefined;
  const targetData = before ? await readTargetData(options, tc, tcNs) : empty.targetData;
  const tikvGcRatioThreshold = before && restore.spec?.restoreMode === 'pitr' && tc ? await readGcRatioThreshold(objects, tcNs, tc) : undefined;
  return { nowMs: now(), restore, tc, jobs: jobsByName, s3SecretKeys, ...(tidbSecretKeys ? { tidbSecretKeys } : {}), targetData, tikvGcRatioThreshold, managerImage };
}

/** The target's user tables through its first TiDB; `unknown` when there is no TiDB or it does not answer. */
async function readTargetData(options: RestoreControllerOptions, tc: TidbCluster, ns: string): Promise<TargetData> {
  const tcName = tc.metadata?.name ?? '';
  if (options.schema === undefined) return { kind: 'unknown', why: 'no TiDB schema client' };
  if ((tc.spec.tidb?.replicas ?? 0) < 1) return { kind: 'unknown', why: `TidbCluster ${ns}/${tcName} runs no TiDB to ask` };
  try {
    const tables = await options.schema({ namespace: ns, tcName, tls: isTlsCluster(tc) }).userTables(`${tcName}-tidb-0`);
    return tables.length === 0 ? { kind: 'empty' } : { kind: 'holds-data', tables };
  } catch (err) {
    return { kind: 'unknown', why: errorText(err) };
  }
}

/** `gc.ratio-threshold` of the TiKV config the `<tc>-tikv` StatefulSet mounts (§2.3 step 4), when set. */
async function readGcRatioThreshold(objects: ObjectReader, ns: string, tc: TidbCluster): Promise<number | undefined> {
  const sts = await objects.getObject('StatefulSet', ns, `${tc.metadata?.name ?? ''}-tikv`);
  const volumes = (sts?.spec?.template?.spec?.volumes ?? []) as { name?: string; configMap?: { name?: string } }[];
  const cmName = volumes.find((v) => v.name === 'config' && v.configMap?.name)?.configMap?.name;
  if (cmName === undefined) return undefined;
  const cm = await objects.getObject('ConfigMap', ns, cmName);
  const text = (cm?.['data'] as Record<string, string> | undefined)?.['config-file'];
  if (text === undefined) return undefined;
  try {
    const gc = (parseToml(text) as { gc?: Record<string, unknown> }).gc;
    const value = gc?.['ratio-threshold'];
    return typeof value === 'number' ? value : undefined;
  } catch {
    return undefined;
  }
}
