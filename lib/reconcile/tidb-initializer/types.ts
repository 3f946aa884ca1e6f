/**
 * TidbInitializer (`tidbinitializers.pingcap.com`, short name `ti`) as its controller reads it: the
 * fields of TiDB Operator v1's `TidbInitializerSpec` / `TidbInitializerStatus` (release-1.6
 * `tidbinitializer_types.go:58-115`), everything else kept as the API server sent it (the object is
 * written back whole: the CRD declares no status subresource).
 */

import type { KubeObject } from '../../model/kube.js';

/** `spec`. `image` and `cluster` are required by the CRD; `cluster.name` within it. */
export type TidbInitializerSpec = {
  /** The mysql-client image (with python and MySQLdb) both containers run. */
  readonly image?: string;
  /** The TidbCluster (`cluster.namespace`, when set, must be the initializer's own: v1 looks only there). */
  readonly cluster?: { readonly name?: string; readonly namespace?: string; readonly clusterDomain?: string };
  readonly imagePullPolicy?: string;
  readonly imagePullSecrets?: readonly unknown[];
  readonly serviceAccountName?: string;
  /** The host root and the created users may connect from (default `%`). */
  readonly permitHost?: string;
  /** SQL run line by line once the passwords are set. */
  readonly initSql?: string;
  /** A ConfigMap whose key `init-sql` holds the SQL; wins over `initSql`. */
  readonly initSqlConfigMap?: string;
  /** A Secret whose keys are user names and values their passwords (`root` sets root's). */
  readonly passwordSecret?: string;
  readonly resources?: unknown;
  readonly timezone?: string;
  readonly tlsClientSecretName?: string;
  readonly tolerations?: readonly unknown[];
  readonly nodeSelector?: Readonly<Record<string, string>>;
  readonly podSecurityContext?: unknown;
};

/** v1's `InitializePhase`: `Pending` is declared by v1 but never written there (here: waiting before the Job). */
export type InitializePhase = 'Pending' | 'Running' | 'Completed' | 'Failed';

/** `status`: the Job's status copied inline (`batchv1.JobStatus`) plus `phase`. */
export type TidbInitializerStatus = {
  readonly phase?: InitializePhase;
  readonly conditions?: readonly { readonly type?: string; readonly status?: string; readonly reason?: string; readonly message?: string }[];
  readonly [field: string]: unknown;
};

/** A TidbInitializer as read. */
export type TidbInitializer = KubeObject & { readonly spec?: TidbInitializerSpec; readonly status?: TidbInitializerStatus };
