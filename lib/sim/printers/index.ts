/**
 * Which printer prints a kind: the built-in kinds' printers (as Kubernetes' pkg/printers), the
 * TidbCluster's from TiDB Operator's printer columns, and the server's default table for any other.
 */
import { CONFIGMAP_PRINTER, ENDPOINTS_PRINTER, EVENT_PRINTER, NAMESPACE_PRINTER, NODE_PRINTER, ROLE_BINDING_PRINTER, ROLE_PRINTER, SECRET_PRINTER, SERVICE_ACCOUNT_PRINTER, SERVICE_PRINTER } from './core.js';
import { DEFAULT_PRINTER } from './default.js';
import type { TablePrinter } from './format.js';
import { JOB_PRINTER } from './job.js';
import { POD_PRINTER } from './pod.js';
import { PV_PRINTER, PVC_PRINTER, STORAGE_CLASS_PRINTER } from './storage.js';
import { CONTROLLER_REVISION_PRINTER, DEPLOYMENT_PRINTER, STATEFULSET_PRINTER } from './workloads.js';

const PRINTERS: Readonly<Record<string, TablePrinter>> = {
  Pod: POD_PRINTER,
  Event: EVENT_PRINTER,
  Service: SERVICE_PRINTER,
  Endpoints: ENDPOINTS_PRINTER,
  Node: NODE_PRINTER,
  Namespace: NAMESPACE_PRINTER,
  ConfigMap: CONFIGMAP_PRINTER,
  Secret: SECRET_PRINTER,
  ServiceAccount: SERVICE_ACCOUNT_PRINTER,
  Role: ROLE_PRINTER,
  RoleBinding: ROLE_BINDING_PRINTER,
  PersistentVolume: PV_PRINTER,
  PersistentVolumeClaim: PVC_PRINTER,
  StorageClass: STORAGE_CLASS_PRINTER,
  StatefulSet: STATEFULSET_PRINTER,
  Deployment: DEPLOYMENT_PRINTER,
  ControllerRevision: CONTROLLER_REVISION_PRINTER,
  Job: JOB_PRINTER,
};

/** The printer of `kind`; a kind without one of its own gets the default table (NAME, CREATED AT). */
export function printerForKind(kind: string): TablePrinter {
  return PRINTERS[kind] ?? DEFAULT_PRINTER;
}

/**
 * What a CustomResourceDefinition's served versions need to be printed: a printer built from a
 * version's `additionalPrinterColumns`, and TiDB Operator's columns for the TidbCluster CRD.
 */
export { customResourcePrinter, type PrinterColumnDefinition, type PrinterColumnSource } from './custom.js';
export { TIDB_CLUSTER_PRINTER_COLUMNS } from './tidbcluster.js';
export type { TablePrinter } from './format.js';
