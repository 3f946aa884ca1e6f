/**
 * The recipe: every rule a step runs, in order, one comment line each — read top to bottom like
 * TiDB Operator v2's `builder.go`. Status rules always run; act rules run until one stops the
 * sequence (a `fail`, or `stop`), and the status rules after that still run, so the status is
 * computed and persisted even when a step fails (as TiDB Operator v1).
 */

import { planAdmission } from './admission.js';
import { planOrphanPods, planPvcCleaner } from './cleaners.js';
import { planClusterStatus } from './cluster-status.js';
import { planCoexistence } from './coexistence.js';
import { planDiscovery } from './discovery.js';
import { planMetaInfo, planPodLabels } from './meta-info.js';
import { planPaused } from './paused.js';
import { planReferencedPd } from './referenced-pd.js';
import { managedSections, planUnmanaged } from './unmanaged.js';
import { planVolumeModifier, planVolumeStatus } from './volume-modifier.js';
import { pdRules } from '../components/pd/recipe.js';
import { tiproxyRules } from '../components/tiproxy/recipe.js';
import { pdmsRules } from '../components/pdms/recipe.js';
import { tiflashRules } from '../components/tiflash/recipe.js';
import { tikvRules } from '../components/tikv/recipe.js';
import { pumpRules } from '../components/pump/recipe.js';
import { ticdcRules } from '../components/ticdc/recipe.js';
import { tidbRules } from '../components/tidb/recipe.js';
import { actRule, statusRule, type Rule } from '../engine/rule.js';

/** The TidbCluster rules, in the order a step runs them. */
export const clusterRules: readonly Rule[] = [
  // --- observe into status ---
  // component status sync (members, stores, phases): PD, TiKV, TiDB, … — next issue

  // --- act ---
  // a running TiDB Operator that manages this cluster too: a condition, one Warning Event, and the
  // step halts (status rules included) until it is stopped or the cluster is annotated to take over
  actRule('Coexistence', planCoexistence),
  // defaulting and validation; an invalid spec is reported once per generation and not retried
  actRule('Admission', planAdmission),
  // a paused cluster keeps its status in sync and gets no other write (TiDB Operator §1.7)
  actRule('Paused', planPaused),
  // a component section no block below reconciles (one a later TiDB Operator adds): a Warning Event and a condition
  actRule('Unmanaged', (input) => planUnmanaged(input, managedSections(clusterRules))),
  // volumes: PV reclaim policy from spec.pvReclaimPolicy, v1's identity labels on PVCs and PVs
  actRule('MetaInfo', planMetaInfo),
  // pods: the cluster id from PD and their member / store id as labels (v1's UpdateMetaInfo, §2.9)
  actRule('PodLabels', planPodLabels),
  // PD/TiKV/TiFlash pods never scheduled whose claim is gone: deleted, so pod and claim come back together
  actRule('OrphanPods', planOrphanPods),
  // discovery service, deployment and RBAC that PD members bootstrap through (skipped without PD)
  actRule('Discovery', planDiscovery),
  // PD microservices (PD in mode ms; v1 syncs them before PD): per service of spec.pdms (tso, then
  // scheduling) its Services, config map, StatefulSet, status from PD, scale, upgrade moving the primary
  ...pdmsRules,
  // PD: the member recipe (gate, status, dependencies, services, config map, force upgrade, scale,
  // failover, upgrade, StatefulSet); a stop inside it ends PD's rules only
  ...pdRules,
  // TiProxy (v1 runs it right after PD, waiting for nothing): its Services, proxy.toml, StatefulSet,
  // health as status, one pod in or out per step, upgrade by partition held while it scales
  ...tiproxyRules,
  // TiFlash (v1 runs it before TiKV): placement rules on in PD, its peer Service and config
  // templates, the StatefulSet once PD is available, scale, upgrade with the store-status check
  ...tiflashRules,
  // TiKV: the member recipe gated on PD available (stores, tombstones and phase from PD's view)
  ...tikvRules,
  // Pump: its Service, config, StatefulSet rolled natively (not written while PD/TiKV/TiFlash
  // upgrade), status from the binlog registry, scale-in after its node went offline
  ...pumpRules,
  // TiDB: the member recipe, gated on TiKV (and Pump) available; its upgrade waits while PD, TiKV,
  // TiFlash or Pump upgrade or scale, keeping its template and partition as they are
  ...tidbRules,
  // TiCDC (gated on PD and TiKV available): captures as status, drained before a pod leaves or restarts
  ...ticdcRules,
  // status.<component>.volumes: bound claims at the desired size and class, and those not yet (v1.6's SyncVolumeStatus)
  statusRule('VolumeStatus', planVolumeStatus),

  // with enablePVReclaim: deferred claims of removed members deleted, their volumes reclaimed (Delete)
  actRule('PvcCleaner', planPvcCleaner),
  // a larger storage request grows one pod's claims at a time while the component is Normal and
  // healthy (v1.6's PVC modifier); a claim that cannot grow or would shrink: a condition and a Warning
  actRule('VolumeModifier', planVolumeModifier),

  // --- conditions ---
  // the Ready condition from the status computed above (TiDB Operator's condition updater)
  statusRule('ClusterStatus', planClusterStatus),
  // a cluster on another cluster's PD (spec.cluster) looks again while it converges: that PD's changes are not its events
  statusRule('ReferencedPd', planReferencedPd),
];
