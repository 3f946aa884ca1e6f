/**
 * The controllers a deployment runs beside the TidbCluster's, as TiDB Operator's controller manager
 * runs its backup, restore, backup-schedule, compact-backup, tidb-dashboard and tidb-ng-monitoring controllers in the same process: each built with the reads it needs.
 */

import type { ObjectReader } from '../kube/port.js';
import type { ControllerSet } from '../step/controller.js';
import type { ClusterClients } from './clients.js';
import { backupController } from './backup-controller.js';
import { compactBackupController } from './compact-backup-controller.js';
import { restoreController } from './restore-controller.js';
import { tidbInitializerController } from './tidb-initializer-controller.js';
import { tidbDashboardController } from './tidb-dashboard-controller.js';
import { tidbNgMonitoringController } from './tidb-ng-monitoring-controller.js';
import { backupScheduleController, type BackupScheduleControllerOptions } from './backup-schedule-controller.js';
import { monitorController } from './monitor-controller.js';

/**
 * The Backup, Restore, CompactBackup and TidbInitializer controllers over `objects` (and, for the Restore's fresh-target check, the
 * clients' TiDB schema reads; for the Backup's log-backup tracker, their PD etcd reads); the BackupSchedule controller too when the deployment wires its
 * EventBridge Scheduler (`schedules`).
 */
export function backupControllers(objects: ObjectReader, clients: ClusterClients, schedules?: Omit<BackupScheduleControllerOptions, 'objects'>): ControllerSet {
  const schema = clients.tidbSchema?.bind(clients);
  const pdEtcd = clients.pdEtcd?.bind(clients);
  return {
    Backup: backupController({ objects, ...(pdEtcd ? { pdEtcd } : {}) }) as ControllerSet['Backup'],
    Restore: restoreController({ objects, ...(schema ? { schema } : {}) }) as ControllerSet['Restore'],
    CompactBackup: compactBackupController({ objects }) as ControllerSet['CompactBackup'],
    TidbInitializer: tidbInitializerController({ objects }) as ControllerSet['TidbInitializer'],
    TidbMonitor: monitorController({ objects }) as ControllerSet['TidbMonitor'],
    TidbDashboard: tidbDashboardController(objects) as ControllerSet['TidbDashboard'],
    TidbNGMonitoring: tidbNgMonitoringController(objects) as ControllerSet['TidbNGMonitoring'],
    ...(schedules === undefined ? {} : { BackupSchedule: backupScheduleController({ objects, ...schedules }) as ControllerSet['BackupSchedule'] }),
  };
}
