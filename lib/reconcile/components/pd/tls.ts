/**
 * PD under cluster TLS, as TiDB Operator v1 (§2.1, §2.10): its own certificate Secret
 * `<tc>-pd-cluster-secret` mounted at `/var/lib/pd-tls`, the `[security]` keys of pd.toml pointing at
 * it, and — since the reconciler reaches PD only with `<tc>-cluster-client-secret` — a check that the
 * client Secret exists before PD's objects are written.
 */

import type { TidbCluster } from '../../../model/kube.js';
import { clusterEvent } from '../../cluster/events.js';
import { TLS_SECRET_KEYS, clusterClientSecretName, isTlsCluster, type TlsWiring } from '../../cluster/tls.js';
import { retry } from '../../engine/outcome.js';
import type { MemberDecision, MemberInput } from '../../member/component.js';
import type { TomlValue } from '../../member/config-data.js';
import { nothing, unlessRecorded } from '../../member/members.js';
import { clusterCertWiring } from '../../member/pod-volumes.js';
import { missingSecrets, pdReadError } from '../../cluster/observed.js';
import { PD_REFUSES_CLIENT, pdReadFailure } from '../../cluster/cluster-status.js';

/** PD's own certificate: volume `pd-tls` at `/var/lib/pd-tls` (v1's `pdClusterCertPath`). */
export const PD_CLUSTER_TLS = { volume: 'pd-tls', mountPath: '/var/lib/pd-tls' } as const;

/**
 * As v1's `getNewPDSetForTidbCluster`: with cluster TLS, the `pd-tls` Secret volume mounted
 * read-only at `/var/lib/pd-tls`, and — only with `spec.pd.mountClusterClientSecret: true` — the
 * cluster client Secret at `/var/lib/cluster-client-tls` (for pd-ctl inside the pod).
 */
export function pdTlsWiring(tc: TidbCluster): TlsWiring {
  return clusterCertWiring(tc, 'pd', tc.spec.pd?.mountClusterClientSecret === true);
}

/**
 * The `[security]` keys v1 injects into pd.toml with cluster TLS: `cacert-path`, `cert-path` and
 * `key-path` under `/var/lib/pd-tls`. Empty when TLS is off. They override the user's values.
 */
export function pdSecurityConfig(tc: TidbCluster): Record<string, TomlValue> {
  if (!isTlsCluster(tc)) return {};
  const at = (key: string): string => `${PD_CLUSTER_TLS.mountPath}/${key}`;
  return {
    'security.cacert-path': at(TLS_SECRET_KEYS.ca),
    'security.cert-path': at(TLS_SECRET_KEYS.cert),
    'security.key-path': at(TLS_SECRET_KEYS.key),
  };
}

/** The Warning Event's reason when the cluster client Secret is missing. */
export const CLUSTER_CLIENT_SECRET_MISSING = 'ClusterClientSecretMissing';

/** How soon to look again for a missing client Secret (creating a Secret triggers no step). */
export const MISSING_SECRET_RECHECK_MS = 30_000;

/**
 * The `PdTlsSecret` rule. With cluster TLS the reconciler reaches PD only when
 * `<tc>-cluster-client-secret` exists (it presents that certificate, docs/adr/0018); the observer checked. Missing ⇒ a Warning
 * Event naming the Secret and a recheck in 30 s, since nothing watches Secrets; status.pd stays
 * unsynced meanwhile. Guarantees: no action when TLS is off or the Secret exists.
 */
export function planPdTlsSecret(input: MemberInput): MemberDecision {
  const tc = input.cluster;
  const name = clusterClientSecretName(tc.metadata.name ?? '');
  if (!isTlsCluster(tc) || !missingSecrets(input.snapshot).includes(name)) return nothing();
  const message = `cluster TLS is on but Secret ${tc.metadata.namespace ?? ''}/${name} does not exist: create it (ca.crt, tls.crt, tls.key) so PD can be reached over https`;
  return { actions: [clusterEvent(tc, 'Warning', CLUSTER_CLIENT_SECRET_MISSING, message)], outcome: retry(MISSING_SECRET_RECHECK_MS, message) };
}

/** The Warning Event's reason when PD's TLS handshake refused the reconciler's client. */
export const PD_REFUSES_CLIENT_REASON = 'ClientCertificateRefused';

/** How soon to look again after PD refused the client (only a redeployment changes how it is reached). */
export const CLIENT_REFUSED_RECHECK_MS = 300_000;

/**
 * The `PdRefusesClient` rule. PD's TLS handshake refused the reconciler (the observer read PD and
 * was refused: the API server proxy presents no client certificate, docs/adr/0018) ⇒ a Warning
 * Event saying why and what to do (once while it persists), and a recheck in 5 minutes — never a silent retry loop; the
 * `Ready` condition says the same (`PDRefusesClient`). Guarantees: no action otherwise.
 */
export function planPdClientRefused(input: MemberInput): MemberDecision {
  const tc = input.cluster;
  if (pdReadFailure(input.snapshot) !== 'clientRefused') return nothing();
  const message = `${PD_REFUSES_CLIENT}. ${pdReadError(input.snapshot) ?? ''}`.trim();
  // Once while it persists: the handshake's answer is the same from step to step.
  return { actions: unlessRecorded(clusterEvent(tc, 'Warning', PD_REFUSES_CLIENT_REASON, message)), outcome: retry(CLIENT_REFUSED_RECHECK_MS, message) };
}
