/**
 * World changes an administrator could make by hand (pd-ctl), for the scenario runner's `world`
 * verb: move the PD leader, set PD configuration, and set the tables' TiFlash replica count. Unlike the HTTP API these take the natural
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

/**
 * `ALTER TABLE … SET TIFLASH REPLICA n` on the table with the most TiFlash replicas: PD's placement
 * rules then keep `n` learners of each region on TiFlash stores. As TiDB's `checkTiFlashReplicaCount`
 * (pkg/ddl), a count above the number of TiFlash stores PD knows is refused (throws).
 */
export function setTiflashReplicas(pd: PdCluster, count: number): void {
  const stores = pd.stores.list().filter((s) => s.engine === 'tiflash' && s.meta !== 'Tombstone').length;
  if (count > stores) throw new Error(`the tiflash replica count: ${count} should be less than the total tiflash server count: ${stores}`);
  pd.tiflashReplicas = count;
  pd.changed();
}
