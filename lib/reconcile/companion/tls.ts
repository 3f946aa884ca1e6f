/**
 * The certificate Secrets a TidbDashboard or TidbNGMonitoring keeps beside its pods: copies of its
 * TidbCluster's client certificates (v1's `TcTlsManager` / `tcAssetManager`, release-1.6), made
 * with `secret.copy` so the values never pass through a snapshot or a plan. A missing source is
 * v1's error: the step fails and is retried with back-off until the certificate exists.
 */

import type { SecretSource } from '../../model/action.js';
import type { TidbCluster } from '../../model/kube.js';
import type { Outcome } from '../../model/outcome.js';
import { fail } from '../engine/outcome.js';
import { companionLabels, companionOwnerRef, type CompanionKind } from './meta.js';
import type { CompanionDraft } from './plan.js';
import type { CompanionObject } from './types.js';

/** One Secret to keep: its name, and the TidbCluster Secrets (in the cluster's namespace) it copies with their key prefix. */
export type SecretCopy = { readonly to: string; readonly from: readonly { readonly name: string; readonly keyPrefix: string }[] };

/**
 * Adds one `secret.copy` per entry of `copies` (in order), or a retryable failure naming the first
 * source `present` says is missing (`present` holds what the observation found, by name).
 */
export function planSecretCopies(draft: CompanionDraft, kind: CompanionKind, obj: CompanionObject, tc: TidbCluster, copies: readonly SecretCopy[], present: Readonly<Record<string, boolean>>): Outcome | undefined {
  const tcNamespace = tc.metadata.namespace ?? '';
  const missing = copies.flatMap((c) => c.from).find((s) => present[s.name] !== true);
  if (missing !== undefined) return fail(`secret "${missing.name}" not found (the TidbCluster ${tcNamespace}/${tc.metadata.name ?? ''} client certificate ${kind} copies)`);
  const namespace = obj.metadata.namespace ?? '';
  for (const copy of copies) {
    const sources: SecretSource[] = copy.from.map((s) => ({ namespace: tcNamespace, name: s.name, keyPrefix: s.keyPrefix }));
    const metadata = { name: copy.to, namespace, labels: companionLabels(kind, obj.metadata.name ?? ''), ownerReferences: [companionOwnerRef(kind, obj)] };
    draft.secretCopies.push({ kind: 'secret.copy', ref: { kind: 'Secret', namespace, name: copy.to }, metadata, sources });
  }
  return undefined;
}
