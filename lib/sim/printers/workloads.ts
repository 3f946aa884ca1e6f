/**
 * The printers of the apps kinds, as Kubernetes' printStatefulSet, printDeployment and
 * printControllerRevision: READY as ready/desired, the template's containers and images as wide
 * columns, a Deployment's selector, a revision's controller as `statefulset.apps/web`.
 */
import type { KubeObject } from '../object.js';
import { AGE_COLUMN, NAME_COLUMN, type TablePrinter, ageOf, column, containerCells, count, formatSelector } from './format.js';

const READY = { name: 'Ready', type: 'string', description: 'Number of the pod with ready state' };
const CONTAINERS = { name: 'Containers', type: 'string', priority: 1, description: 'Names of each container in the template.' };
const IMAGES = { name: 'Images', type: 'string', priority: 1, description: 'Images referenced by each container in the template.' };

/** The StatefulSet kind's printer: NAME, READY, AGE; wide CONTAINERS, IMAGES. */
export const STATEFULSET_PRINTER: TablePrinter = {
  columns: [NAME_COLUMN, READY, AGE_COLUMN, CONTAINERS, IMAGES],
  cells: (sts, nowMs) => [sts.metadata.name ?? '', `${count(sts.status?.readyReplicas)}/${count(sts.spec?.replicas)}`, ageOf(sts, nowMs), ...containerCells(sts.spec?.template)],
};

/** The Deployment kind's printer: NAME, READY, UP-TO-DATE, AVAILABLE, AGE; wide CONTAINERS, IMAGES, SELECTOR. */
export const DEPLOYMENT_PRINTER: TablePrinter = {
  columns: [NAME_COLUMN, READY, column('Up-to-date'), column('Available'), AGE_COLUMN, CONTAINERS, IMAGES, column('Selector', 1)],
  cells: (d, nowMs) => [
    d.metadata.name ?? '',
    `${count(d.status?.readyReplicas)}/${count(d.spec?.replicas)}`,
    count(d.status?.updatedReplicas),
    count(d.status?.availableReplicas),
    ageOf(d, nowMs),
    ...containerCells(d.spec?.template),
    formatSelector(d.spec?.selector),
  ],
};

/** `kind.group/name` of the controller owner, as formatResourceName prints it; `<none>` without one. */
function controllerName(obj: KubeObject): string {
  const ref = obj.metadata.ownerReferences?.find((r) => r.controller === true);
  if (!ref) return '<none>';
  const group = ref.apiVersion.includes('/') ? ref.apiVersion.split('/')[0] : '';
  return `${ref.kind.toLowerCase()}${group ? `.${group}` : ''}/${ref.name}`;
}

/** The ControllerRevision kind's printer: NAME, CONTROLLER, REVISION, AGE. */
export const CONTROLLER_REVISION_PRINTER: TablePrinter = {
  columns: [NAME_COLUMN, { name: 'Controller', type: 'string', description: 'Controller of the object' }, column('Revision'), AGE_COLUMN],
  cells: (cr, nowMs) => [cr.metadata.name ?? '', controllerName(cr), count((cr as { revision?: unknown }).revision), ageOf(cr, nowMs)],
};

