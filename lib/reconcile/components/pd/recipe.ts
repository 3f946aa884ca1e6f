/**
 * The PD member manager as a recipe: TiDB Operator v1's `pdMemberManager.Sync` (§1.4, §2.1) as named
 * rules in the order a step runs them. Every act rule passes the PD gate first (no `spec.pd`, a
 * paused cluster or a suspended PD ⇒ nothing); the status rule runs on every step. A rule that writes
 * the StatefulSet stops the sequence, so a step writes it at most once.
 */

import { planPdConfigMap } from './config-map.js';
import { planPdFailover } from './failover.js';
import { planPdForceUpgrade } from './force-upgrade.js';
import { planPdServices } from './services.js';
import { planPdScale } from './scale.js';
import { planPdStatefulSet } from './statefulset-write.js';
import { planPdStatus } from './status.js';
import { planPdUpgrade } from './upgrade.js';
import { actRule, statusRule, type Rule } from '../../engine/rule.js';
import { planPdTlsSecret } from '../../cluster/tls.js';

/** The PD rules, in the order a step runs them. */
export const pdRules: readonly Rule[] = [
  // cluster TLS without <tc>-cluster-client-secret: Warning Event, PD left alone, recheck in 30 s
  actRule('PdTlsSecret', planPdTlsSecret),
  // client Service <tc>-pd and headless peer Service <tc>-pd-peer
  actRule('PdServices', planPdServices),
  // ConfigMap with pd.toml and the start script (<tc>-pd, or <tc>-pd-<hash> under RollingUpdate)
  actRule('PdConfigMap', planPdConfigMap),
  // status.pd from the StatefulSet and PD: members, leader, synced, phase (runs even when paused)
  statusRule('PdStatus', planPdStatus),
  // PD not synced and the pod spec changed: with the annotation (or a lone replica) write all, partition 0
  actRule('PdForceUpgrade', planPdForceUpgrade),
  // one member in or out per step: defer-deleting PVCs, leader transfer, delete member, replicas ±1
  actRule('PdScale', planPdScale),
  // recover, or mark / delete one failed member (only with quorum, deadline persisted and woken at)
  actRule('PdFailover', planPdFailover),
  // rolling upgrade by partition, one pod per step, leadership moved off a pod before it restarts
  actRule('PdUpgrade', planPdUpgrade),
  // create the StatefulSet, or apply what no rule above wrote (labels, resting partition)
  actRule('PdStatefulSet', planPdStatefulSet),
];
