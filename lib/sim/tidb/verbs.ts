/**
 * World changes an administrator could make by hand (pd-ctl), for the scenario runner's `world`
 * verb: move the PD leader, and set PD configuration. Unlike the HTTP API these take the natural
 * YAML shapes (`location-labels: [zone, host]`) and do not go through the reconciler's path.
 */
import { type PdConfig, applyToml } from './pd-config.js';
import type { PdCluster } from './pd-cluster.js';

/** Makes `member` the PD leader now; throws when it cannot lead (unknown, not serving, no quorum). */
export function movePdLeader(pd: PdCluster, member: string): void {
  const result = pd.members.forceLeader(member);
  if ('refused' in result) throw new Error(result.refused.message);
}

/**
 * Applies `{replication: {...}, schedule: {...}}` (pd.toml's shape: max-replicas,
 * location-labels, enable-placement-rules, isolation-level, max-store-down-time).
 */
export function setPdConfig(pd: PdCluster, config: Record<string, unknown>): PdConfig {
  pd.config = applyToml(pd.config, config);
  pd.changed();
  return pd.config;
}
