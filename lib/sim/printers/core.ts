/**
 * The printers of the core and RBAC kinds, as Kubernetes' printEvent, printService, printEndpoints,
 * printNode, printNamespace, printConfigMap, printSecret, printServiceAccount, printRole and
 * printRoleBinding, with their cell formats (`pod/basic-pd-0`, `10.100.0.1`, `2379/TCP,2380/TCP`,
 * `Ready,SchedulingDisabled`, …).
 */
import type { KubeObject } from '../object.js';
import { AGE_COLUMN, type Cell, NAME_COLUMN, type TablePrinter, ageOf, column, count, createdAt, formatLabels, list, record, since, text } from './format.js';

type Json = Record<string, unknown>;

/** As printEvent: the last time seen falls back to the first, the first to eventTime; a series overrides both count and last. */
function eventCells(ev: KubeObject, nowMs: number): Cell[] {
  const first = ev.firstTimestamp ? since(ev.firstTimestamp, nowMs) : since(ev.eventTime, nowMs);
  let last = ev.lastTimestamp ? since(ev.lastTimestamp, nowMs) : first;
  let n = count(ev.count);
  const series = record(ev.series);
  if (ev.series !== undefined && ev.series !== null) {
    last = since(series.lastObservedTime, nowMs);
    n = count(series.count);
  } else if (n === 0) n = 1;
  const involved = record(ev.involvedObject);
  const kind = text(involved.kind).toLowerCase();
  const target = text(involved.name) ? `${kind}/${text(involved.name)}` : kind;
  const source = record(ev.source);
  const component = text(source.component) || text(ev.reportingComponent);
  const instance = text(source.host) || text(ev.reportingInstance);
  const from = instance ? `${component}, ${instance}` : component;
  return [last, text(ev.type), text(ev.reason), target, text(involved.fieldPath), from, text(ev.message).trim(), first, n, ev.metadata.name ?? ''];
}

/** The Event kind's printer: LAST SEEN, TYPE, REASON, OBJECT, MESSAGE; wide SUBOBJECT, SOURCE, FIRST SEEN, COUNT, NAME. */
export const EVENT_PRINTER: TablePrinter = {
  columns: [column('Last Seen'), column('Type'), column('Reason'), column('Object'), column('Subobject', 1), column('Source', 1), column('Message'), column('First Seen', 1), column('Count', 1), { ...NAME_COLUMN, priority: 1 }],
  cells: eventCells,
};

/** As getServiceExternalIP: external IPs, a load balancer's ingress (`<pending>` until it has one), an ExternalName. */
function externalIp(svc: KubeObject): string {
  const external = list<string>(svc.spec?.externalIPs);
  switch (svc.spec?.type) {
    case 'ClusterIP':
    case 'NodePort':
      return external.length > 0 ? external.join(',') : '<none>';
    case 'LoadBalancer': {
      const ingress = [...new Set(list(record(svc.status?.loadBalancer).ingress).map((i) => text(i.ip) || text(i.hostname)).filter((v) => v !== ''))].sort();
      const all = [...ingress, ...external];
      return all.length > 0 ? all.join(',') : '<pending>';
    }
    case 'ExternalName':
      return text(svc.spec?.externalName);
    default:
      return '<unknown>';
  }
}

function ports(svc: KubeObject): string {
  const out = list(svc.spec?.ports).map((p) => (count(p.nodePort) > 0 ? `${count(p.port)}:${count(p.nodePort)}/${text(p.protocol)}` : `${count(p.port)}/${text(p.protocol)}`));
  return out.length > 0 ? out.join(',') : '<none>';
}

/** The Service kind's printer: NAME, TYPE, CLUSTER-IP, EXTERNAL-IP, PORT(S), AGE; wide SELECTOR. */
export const SERVICE_PRINTER: TablePrinter = {
  columns: [NAME_COLUMN, column('Type'), column('Cluster-IP'), column('External-IP'), column('Port(s)'), AGE_COLUMN, column('Selector', 1)],
  cells: (svc, nowMs) => [svc.metadata.name ?? '', text(svc.spec?.type), text(list<string>(svc.spec?.clusterIPs)[0]) || '<none>', externalIp(svc), ports(svc), ageOf(svc, nowMs), formatLabels(svc.spec?.selector)],
};

const hostPort = (ip: string, port: number): string => (ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`);

/** As formatEndpoints: the first three `ip:port` pairs, then `+ N more...`; `<none>` when empty. */
function formatEndpoints(ep: KubeObject): string {
  const subsets = list((ep as { subsets?: unknown }).subsets);
  if (subsets.length === 0) return '<none>';
  const shown: string[] = [];
  let total = 0;
  for (const ss of subsets) {
    const addresses = list(ss.addresses).map((a) => text(a.ip));
    const portList = list(ss.ports);
    const pairs = portList.length === 0 ? addresses : portList.flatMap((p) => addresses.map((ip) => hostPort(ip, count(p.port))));
    total += pairs.length;
    shown.push(...pairs.slice(0, Math.max(0, 3 - shown.length)));
  }
  if (total > 3) return `${shown.join(',')} + ${total - 3} more...`;
  return shown.length > 0 ? shown.join(',') : '<none>';
}

/** The Endpoints kind's printer: NAME, ENDPOINTS, AGE. */
export const ENDPOINTS_PRINTER: TablePrinter = {
  columns: [NAME_COLUMN, column('Endpoints'), AGE_COLUMN],
  cells: (ep, nowMs) => [ep.metadata.name ?? '', formatEndpoints(ep), ageOf(ep, nowMs)],
};

function nodeStatus(node: KubeObject): string {
  const ready = list(node.status?.conditions).find((c) => c.type === 'Ready');
  const status = ready ? [ready.status === 'True' ? 'Ready' : 'NotReady'] : ['Unknown'];
  if (node.spec?.unschedulable === true) status.push('SchedulingDisabled');
  return status.join(',');
}

/** As findNodeRoles: `node-role.kubernetes.io/<role>` labels and `kubernetes.io/role`, sorted; `<none>` without. */
function nodeRoles(node: KubeObject): string {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(node.metadata.labels ?? {})) {
    if (k.startsWith('node-role.kubernetes.io/') && k.length > 'node-role.kubernetes.io/'.length) roles.add(k.slice('node-role.kubernetes.io/'.length));
    else if (k === 'kubernetes.io/role' && v !== '') roles.add(v);
  }
  return roles.size > 0 ? [...roles].sort().join(',') : '<none>';
}

const nodeAddress = (node: KubeObject, type: string): string => text(list(node.status?.addresses).find((a) => a.type === type)?.address) || '<none>';

/** The Node kind's printer: NAME, STATUS, ROLES, AGE, VERSION; wide INTERNAL-IP, EXTERNAL-IP, OS-IMAGE, KERNEL-VERSION, CONTAINER-RUNTIME. */
export const NODE_PRINTER: TablePrinter = {
  columns: [
    NAME_COLUMN,
    { name: 'Status', type: 'string', description: 'The status of the node' },
    { name: 'Roles', type: 'string', description: 'The roles of the node' },
    AGE_COLUMN,
    column('Version'),
    ...['Internal-IP', 'External-IP', 'OS-Image', 'Kernel-Version', 'Container-Runtime'].map((c) => column(c, 1)),
  ],
  cells: (node, nowMs) => {
    const info = record(node.status?.nodeInfo);
    const orUnknown = (v: unknown): string => text(v) || '<unknown>';
    return [
      node.metadata.name ?? '',
      nodeStatus(node),
      nodeRoles(node),
      ageOf(node, nowMs),
      text(info.kubeletVersion),
      nodeAddress(node, 'InternalIP'),
      nodeAddress(node, 'ExternalIP'),
      orUnknown(info.osImage),
      orUnknown(info.kernelVersion),
      orUnknown(info.containerRuntimeVersion),
    ];
  },
};

const keys = (v: unknown): number => Object.keys(record(v)).length;

/** The Namespace kind's printer: NAME, STATUS, AGE. */
export const NAMESPACE_PRINTER: TablePrinter = {
  columns: [NAME_COLUMN, { name: 'Status', type: 'string', description: 'The status of the namespace' }, AGE_COLUMN],
  cells: (ns, nowMs) => [ns.metadata.name ?? '', text(ns.status?.phase), ageOf(ns, nowMs)],
};

/** The ConfigMap kind's printer: NAME, DATA (keys of data and binaryData), AGE. */
export const CONFIGMAP_PRINTER: TablePrinter = {
  columns: [NAME_COLUMN, column('Data'), AGE_COLUMN],
  cells: (cm, nowMs) => [cm.metadata.name ?? '', keys(cm.data) + keys(cm.binaryData), ageOf(cm, nowMs)],
};

/** The Secret kind's printer: NAME, TYPE, DATA, AGE. */
export const SECRET_PRINTER: TablePrinter = {
  columns: [NAME_COLUMN, column('Type'), column('Data'), AGE_COLUMN],
  cells: (s, nowMs) => [s.metadata.name ?? '', text(s.type), keys(s.data), ageOf(s, nowMs)],
};

/** The ServiceAccount kind's printer: NAME, SECRETS, AGE. */
export const SERVICE_ACCOUNT_PRINTER: TablePrinter = {
  columns: [NAME_COLUMN, column('Secrets'), AGE_COLUMN],
  cells: (sa, nowMs) => [sa.metadata.name ?? '', list(sa.secrets).length, ageOf(sa, nowMs)],
};

/** The Role kind's printer: NAME, CREATED AT (RFC 3339, not an age). */
export const ROLE_PRINTER: TablePrinter = {
  columns: [NAME_COLUMN, column('Created At')],
  cells: (role) => [role.metadata.name ?? '', createdAt(role)],
};

function subjects(rb: KubeObject, kind: string): string {
  return list((rb as { subjects?: unknown }).subjects)
    .filter((s: Json) => s.kind === kind)
    .map((s) => (kind === 'ServiceAccount' ? `${text(s.namespace)}/${text(s.name)}` : text(s.name)))
    .join(', ');
}

/** The RoleBinding kind's printer: NAME, ROLE (`Role/name`), AGE; wide USERS, GROUPS, SERVICEACCOUNTS. */
export const ROLE_BINDING_PRINTER: TablePrinter = {
  columns: [NAME_COLUMN, column('Role'), AGE_COLUMN, column('Users', 1), column('Groups', 1), column('ServiceAccounts', 1)],
  cells: (rb, nowMs) => {
    const ref = record((rb as { roleRef?: unknown }).roleRef);
    return [rb.metadata.name ?? '', `${text(ref.kind)}/${text(ref.name)}`, ageOf(rb, nowMs), subjects(rb, 'User'), subjects(rb, 'Group'), subjects(rb, 'ServiceAccount')];
  },
};
