/**
 * What a TidbInitializer must satisfy. v1 checks nothing itself (the CRD requires `image` and
 * `cluster.name`); everything below is what v1 leaves to a pod that hangs or a script that breaks,
 * each naming the field:
 *   - `spec.image`, `spec.cluster.name` set (an object created without the CRD's checks);
 *   - `spec.cluster.namespace`, when set, the initializer's own: v1 looks the TidbCluster up only
 *     there and would silently initialise a same-named cluster of this namespace;
 *   - `spec.permitHost` a MySQL host pattern: v1 pastes it into a python string literal;
 *   - something to do: a password Secret or init SQL.
 * `prerequisiteProblem` then says what the pod would wait on forever (v1: ContainerCreating with
 * FailedMount): the password Secret missing, empty, or with a key that is no MySQL user name; the
 * `initSqlConfigMap` missing or without its `init-sql` key. Pure.
 */

import type { TidbInitializerSpec } from './types.js';
import { INIT } from './job.js';

/** A MySQL host pattern: letters, digits, `.`, `-`, `_`, `%`, `:`, `/` (a netmask). */
const HOST_PATTERN = /^[A-Za-z0-9.\-_%:/]{1,255}$/;

/** MySQL (and TiDB) user names are at most 32 characters. */
const MAX_USER_LENGTH = 32;

/** The first problem of the spec; undefined when valid. */
export function validateInitializerSpec(namespace: string, spec: TidbInitializerSpec): string | undefined {
  if ((spec.image ?? '') === '') return 'spec.image must be set: the mysql-client image (python with MySQLdb) the initializer Job runs';
  if ((spec.cluster?.name ?? '') === '') return 'spec.cluster.name must be set: the TidbCluster to initialise';
  const clusterNs = spec.cluster?.namespace ?? '';
  if (clusterNs !== '' && clusterNs !== namespace) {
    return `spec.cluster.namespace ${clusterNs} is not the TidbInitializer's namespace ${namespace}: the initializer must live beside its TidbCluster`;
  }
  if (spec.permitHost !== undefined && !HOST_PATTERN.test(spec.permitHost)) return `spec.permitHost ${JSON.stringify(spec.permitHost)} is not a MySQL host pattern (letters, digits, '.', '-', '_', '%')`;
  if (spec.passwordSecret === '') return 'spec.passwordSecret must name a Secret when set';
  if (spec.initSqlConfigMap === '') return 'spec.initSqlConfigMap must name a ConfigMap when set';
  if (spec.passwordSecret === undefined && spec.initSql === undefined && spec.initSqlConfigMap === undefined) {
    return 'nothing to initialise: set spec.passwordSecret, spec.initSql or spec.initSqlConfigMap';
  }
  return undefined;
}

/** What the step reads of the objects the pod mounts: key names only (undefined = not found). */
export type MountedSources = { readonly secretKeys: readonly string[] | undefined; readonly sqlConfigMapKeys: readonly string[] | undefined };

/** Why the Job's pod could not run yet (a Secret or ConfigMap it mounts); undefined when it can. */
export function prerequisiteProblem(namespace: string, spec: TidbInitializerSpec, sources: MountedSources): string | undefined {
  if (spec.passwordSecret !== undefined) {
    const keys = sources.secretKeys;
    if (keys === undefined) return `spec.passwordSecret: Secret ${namespace}/${spec.passwordSecret} not found (create it first, e.g. kubectl create secret generic ${spec.passwordSecret} --from-literal=root=<password>)`;
    const users = keys.filter((k) => !k.startsWith('.'));
    if (users.length === 0) return `spec.passwordSecret: Secret ${namespace}/${spec.passwordSecret} has no keys: each key is a user name, its value the password`;
    const bad = users.find((k) => k.length > MAX_USER_LENGTH);
    if (bad !== undefined) return `spec.passwordSecret: key ${bad} of Secret ${namespace}/${spec.passwordSecret} is not a MySQL user name (at most ${MAX_USER_LENGTH} characters)`;
  }
  if (spec.initSqlConfigMap !== undefined) {
    const keys = sources.sqlConfigMapKeys;
    if (keys === undefined) return `spec.initSqlConfigMap: ConfigMap ${namespace}/${spec.initSqlConfigMap} not found`;
    if (!keys.includes(INIT.sqlKey)) return `spec.initSqlConfigMap: ConfigMap ${namespace}/${spec.initSqlConfigMap} has no key ${INIT.sqlKey}`;
  }
  return undefined;
}
