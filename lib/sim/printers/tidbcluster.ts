/**
 * TiDB Operator v1's printer columns for TidbCluster (pingcap.com/v1alpha1), as its published CRD
 * (manifests/crd/v1/pingcap.com_tidbclusters.yaml) lists them, so `kubectl get tc` prints READY,
 * PD, STORAGE, READY, DESIRE, TIKV, STORAGE, READY, DESIRE, TIDB, READY, DESIRE, AGE (and STATUS
 * with `-o wide`) as on a cluster with TiDB Operator installed.
 */
import type { PrinterColumnDefinition } from './custom.js';

/** The `additionalPrinterColumns` of TiDB Operator's TidbCluster CRD, in its order. */
export const TIDB_CLUSTER_PRINTER_COLUMNS: readonly PrinterColumnDefinition[] = [
  { jsonPath: '.status.conditions[?(@.type=="Ready")].status', name: 'Ready', type: 'string' },
  { description: 'The image for PD cluster', jsonPath: '.status.pd.image', name: 'PD', type: 'string' },
  { description: 'The storage size specified for PD node', jsonPath: '.spec.pd.requests.storage', name: 'Storage', type: 'string' },
  { description: 'The ready replicas number of PD cluster', jsonPath: '.status.pd.statefulSet.readyReplicas', name: 'Ready', type: 'integer' },
  { description: 'The desired replicas number of PD cluster', jsonPath: '.spec.pd.replicas', name: 'Desire', type: 'integer' },
  { description: 'The image for TiKV cluster', jsonPath: '.status.tikv.image', name: 'TiKV', type: 'string' },
  { description: 'The storage size specified for TiKV node', jsonPath: '.spec.tikv.requests.storage', name: 'Storage', type: 'string' },
  { description: 'The ready replicas number of TiKV cluster', jsonPath: '.status.tikv.statefulSet.readyReplicas', name: 'Ready', type: 'integer' },
  { description: 'The desired replicas number of TiKV cluster', jsonPath: '.spec.tikv.replicas', name: 'Desire', type: 'integer' },
  { description: 'The image for TiDB cluster', jsonPath: '.status.tidb.image', name: 'TiDB', type: 'string' },
  { description: 'The ready replicas number of TiDB cluster', jsonPath: '.status.tidb.statefulSet.readyReplicas', name: 'Ready', type: 'integer' },
  { description: 'The desired replicas number of TiDB cluster', jsonPath: '.spec.tidb.replicas', name: 'Desire', type: 'integer' },
  { jsonPath: '.status.conditions[?(@.type=="Ready")].message', name: 'Status', priority: 1, type: 'string' },
  { jsonPath: '.metadata.creationTimestamp', name: 'Age', type: 'date' },
];
