/**
 * Server-side printing, cell by cell: each kind's printer against objects shaped as the simulated
 * world stores them, with the values Kubernetes' printers give for the same objects.
 */
import { describe, expect, it } from '@jest/globals';
import type { KubeObject } from '../../lib/sim/object.js';
import { CONFIGMAP_PRINTER, ENDPOINTS_PRINTER, EVENT_PRINTER, NODE_PRINTER, ROLE_BINDING_PRINTER, ROLE_PRINTER, SECRET_PRINTER, SERVICE_PRINTER } from '../../lib/sim/printers/core.js';
import { formatSelector, humanDuration } from '../../lib/sim/printers/format.js';
import { POD_PRINTER } from '../../lib/sim/printers/pod.js';
import { PV_PRINTER, PVC_PRINTER, STORAGE_CLASS_PRINTER } from '../../lib/sim/printers/storage.js';
import { CONTROLLER_REVISION_PRINTER, DEPLOYMENT_PRINTER, STATEFULSET_PRINTER } from '../../lib/sim/printers/workloads.js';

const NOW_MS = Date.UTC(2026, 0, 10, 12, 0, 0);
const ago = (seconds: number): string => new Date(NOW_MS - seconds * 1000).toISOString().replace('.000Z', 'Z');
const meta = (name: string, extra: Record<string, unknown> = {}) => ({ name, namespace: 'demo', creationTimestamp: ago(303), ...extra });
const header = (p: { columns: readonly { name: string; priority?: number }[] }, wide = false): string[] => p.columns.filter((c) => wide || !c.priority).map((c) => c.name);

describe('humanDuration', () => {
  it.each([
    { name: 'under two minutes in seconds', ms: 119_000, want: '119s' },
    { name: 'under ten minutes with seconds', ms: 303_000, want: '5m3s' },
    { name: 'whole minutes drop the seconds', ms: 300_000, want: '5m' },
    { name: 'under three hours in minutes', ms: 179 * 60_000, want: '179m' },
    { name: 'under eight hours with minutes', ms: (3 * 60 + 15) * 60_000, want: '3h15m' },
    { name: 'under two days in hours', ms: 47 * 3_600_000, want: '47h' },
    { name: 'under eight days with hours', ms: (2 * 24 + 3) * 3_600_000, want: '2d3h' },
    { name: 'under two years in days', ms: 400 * 86_400_000, want: '400d' },
    { name: 'under eight years with days', ms: (3 * 365 + 10) * 86_400_000, want: '3y10d' },
    { name: 'later in years', ms: 9 * 365 * 86_400_000, want: '9y' },
    { name: 'a second ahead (clock skew) is 0s', ms: -1500, want: '0s' },
    { name: 'further ahead is invalid', ms: -3000, want: '<invalid>' },
  ])('$name: $want', ({ ms, want }) => {
    expect(humanDuration(ms)).toBe(want);
  });
});

const container = (state: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ name: 'app', ready: false, restartCount: 0, state, lastState: {}, ...extra });
const pod = (status: Record<string, unknown>, spec: Record<string, unknown> = {}, metaExtra: Record<string, unknown> = {}): KubeObject => ({
  metadata: meta('web-0', metaExtra),
  spec: { containers: [{ name: 'app', image: 'nginx:1' }], nodeName: 'node-1', ...spec },
  status,
});

describe('pods print READY, STATUS and RESTARTS as kubectl computes them', () => {
  it.each([
    { name: 'a pending pod not yet scheduled', pod: pod({ phase: 'Pending' }, { nodeName: undefined }), want: ['web-0', '0/1', 'Pending', '0', '5m3s', '<none>', '<none>', '<none>', '<none>'] },
    {
      name: 'a container being created',
      pod: pod({ phase: 'Pending', podIPs: [{ ip: '10.1.0.3' }], containerStatuses: [container({ waiting: { reason: 'ContainerCreating' } })] }),
      want: ['web-0', '0/1', 'ContainerCreating', '0', '5m3s', '10.1.0.3', 'node-1', '<none>', '<none>'],
    },
    {
      name: 'a running ready container',
      pod: pod({ phase: 'Running', containerStatuses: [container({ running: { startedAt: ago(60) } }, { ready: true })] }),
      want: ['web-0', '1/1', 'Running', '0', '5m3s', '<none>', 'node-1', '<none>', '<none>'],
    },
    {
      name: 'a crash-looping container shows its restarts and when the last one ended',
      pod: pod({ phase: 'Running', containerStatuses: [container({ waiting: { reason: 'CrashLoopBackOff' } }, { restartCount: 3, lastState: { terminated: { exitCode: 1, reason: 'Error', finishedAt: ago(45) } } })] }),
      want: ['web-0', '0/1', 'CrashLoopBackOff', '3 (45s ago)', '5m3s', '<none>', 'node-1', '<none>', '<none>'],
    },
    {
      name: 'a container that exited with an error',
      pod: pod({ phase: 'Failed', containerStatuses: [container({ terminated: { exitCode: 2, reason: 'Error' } })] }),
      want: ['web-0', '0/1', 'Error', '0', '5m3s', '<none>', 'node-1', '<none>', '<none>'],
    },
    {
      name: 'a container killed by a signal, without a reason',
      pod: pod({ phase: 'Running', containerStatuses: [container({ terminated: { exitCode: 137, signal: 9 } })] }),
      want: ['web-0', '0/1', 'Signal:9', '0', '5m3s', '<none>', 'node-1', '<none>', '<none>'],
    },
    {
      name: 'a finished job pod',
      pod: pod({ phase: 'Succeeded', containerStatuses: [container({ terminated: { exitCode: 0, reason: 'Completed' } })] }),
      want: ['web-0', '0/1', 'Completed', '0', '5m3s', '<none>', 'node-1', '<none>', '<none>'],
    },
    {
      name: 'a deleted pod is Terminating',
      pod: pod({ phase: 'Running', containerStatuses: [container({ running: {} }, { ready: true })] }, {}, { deletionTimestamp: ago(5) }),
      want: ['web-0', '1/1', 'Terminating', '0', '5m3s', '<none>', 'node-1', '<none>', '<none>'],
    },
    {
      name: 'an init container still running',
      pod: pod({ phase: 'Pending', initContainerStatuses: [container({ running: {} }, { name: 'init' })], containerStatuses: [container({ waiting: { reason: 'PodInitializing' } })] }, { initContainers: [{ name: 'init' }, { name: 'init2' }] }),
      want: ['web-0', '0/1', 'Init:0/2', '0', '5m3s', '<none>', 'node-1', '<none>', '<none>'],
    },
    {
      name: 'an init container crash-looping',
      pod: pod({ phase: 'Pending', initContainerStatuses: [container({ waiting: { reason: 'CrashLoopBackOff' } }, { name: 'init', restartCount: 2 })] }, { initContainers: [{ name: 'init' }] }),
      want: ['web-0', '0/1', 'Init:CrashLoopBackOff', '2', '5m3s', '<none>', 'node-1', '<none>', '<none>'],
    },
    {
      name: 'a started sidecar counts among the ready containers',
      pod: pod(
        { phase: 'Running', conditions: [{ type: 'Initialized', status: 'True' }], initContainerStatuses: [container({ running: {} }, { name: 'proxy', started: true, ready: true })], containerStatuses: [container({ running: {} }, { ready: true })] },
        { initContainers: [{ name: 'proxy', restartPolicy: 'Always' }] },
      ),
      want: ['web-0', '2/2', 'Running', '0', '5m3s', '<none>', 'node-1', '<none>', '<none>'],
    },
    {
      name: 'readiness gates count the true conditions they name',
      pod: pod({ phase: 'Running', conditions: [{ type: 'example.com/lb', status: 'True' }], containerStatuses: [container({ running: {} }, { ready: true })] }, { readinessGates: [{ conditionType: 'example.com/lb' }, { conditionType: 'example.com/dns' }] }),
      want: ['web-0', '1/1', 'Running', '0', '5m3s', '<none>', 'node-1', '<none>', '1/2'],
    },
  ])('$name', ({ pod: p, want }) => {
    expect(POD_PRINTER.cells(p, NOW_MS)).toEqual(want);
  });

  it('the columns are NAME, READY, STATUS, RESTARTS, AGE; -o wide adds IP, NODE, NOMINATED NODE, READINESS GATES', () => {
    expect(header(POD_PRINTER)).toEqual(['Name', 'Ready', 'Status', 'Restarts', 'Age']);
    expect(header(POD_PRINTER, true).slice(5)).toEqual(['IP', 'Node', 'Nominated Node', 'Readiness Gates']);
  });

  it('a finished pod row carries the Completed condition', () => {
    expect(POD_PRINTER.conditions?.(pod({ phase: 'Failed' }))).toEqual([{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }]);
    expect(POD_PRINTER.conditions?.(pod({ phase: 'Running' }))).toBeUndefined();
  });
});

const event = (extra: Record<string, unknown>): KubeObject => ({
  metadata: meta('basic.1'),
  involvedObject: { kind: 'TidbCluster', name: 'basic', namespace: 'demo' },
  reason: 'FailedValidation',
  message: ' spec.pd.replicas: must be odd \n',
  type: 'Warning',
  source: { component: 'tidb-reconciler' },
  ...extra,
});

describe('events print LAST SEEN, TYPE, REASON, OBJECT, MESSAGE', () => {
  it.each([
    {
      name: 'a repeated event: last and first seen, its count',
      ev: event({ firstTimestamp: ago(600), lastTimestamp: ago(30), count: 4 }),
      want: ['30s', 'Warning', 'FailedValidation', 'tidbcluster/basic', '', 'tidb-reconciler', 'spec.pd.replicas: must be odd', '10m', 4, 'basic.1'],
    },
    { name: 'no last time: the first time, count 1', ev: event({ firstTimestamp: ago(90) }), want: ['90s', 'Warning', 'FailedValidation', 'tidbcluster/basic', '', 'tidb-reconciler', 'spec.pd.replicas: must be odd', '90s', 1, 'basic.1'] },
    {
      name: 'a new-API event: eventTime (microseconds, truncated to whole seconds), series and the reporting instance',
      ev: event({ source: {}, eventTime: '2026-01-10T11:59:00.123456Z', series: { count: 7, lastObservedTime: ago(5) }, reportingComponent: 'kubelet', reportingInstance: 'node-1' }),
      want: ['5s', 'Warning', 'FailedValidation', 'tidbcluster/basic', '', 'kubelet, node-1', 'spec.pd.replicas: must be odd', '59s', 7, 'basic.1'],
    },
    { name: 'no times at all', ev: event({ involvedObject: { kind: 'Node' } }), want: ['<unknown>', 'Warning', 'FailedValidation', 'node', '', 'tidb-reconciler', 'spec.pd.replicas: must be odd', '<unknown>', 1, 'basic.1'] },
  ])('$name', ({ ev, want }) => {
    expect(EVENT_PRINTER.cells(ev, NOW_MS)).toEqual(want);
  });

  it('shows five columns; -o wide adds SUBOBJECT, SOURCE, FIRST SEEN, COUNT, NAME', () => {
    expect(header(EVENT_PRINTER)).toEqual(['Last Seen', 'Type', 'Reason', 'Object', 'Message']);
    expect(header(EVENT_PRINTER, true)).toEqual(['Last Seen', 'Type', 'Reason', 'Object', 'Subobject', 'Source', 'Message', 'First Seen', 'Count', 'Name']);
  });
});

const svc = (spec: Record<string, unknown>, status: Record<string, unknown> = {}): KubeObject => ({ metadata: meta('basic-pd'), spec, status });
const ep = (subsets: unknown[]): KubeObject => ({ metadata: meta('basic-pd'), subsets });
const node = (extra: { labels?: Record<string, string>; unschedulable?: boolean; ready?: string }): KubeObject => ({
  metadata: meta('node-1', { namespace: undefined, labels: extra.labels ?? {} }),
  spec: extra.unschedulable ? { unschedulable: true } : {},
  status: {
    conditions: extra.ready ? [{ type: 'Ready', status: extra.ready }] : [],
    addresses: [{ type: 'InternalIP', address: '192.168.0.11' }],
    nodeInfo: { kubeletVersion: 'v1.34.1-eks', osImage: 'Amazon Linux 2023', kernelVersion: '6.1', containerRuntimeVersion: 'containerd://1.7' },
  },
});
const template = { spec: { containers: [{ name: 'pd', image: 'pingcap/pd:v8.5.0' }, { name: 'log', image: 'busybox:1' }] } };

describe('the other built-in kinds print what kubectl shows on EKS', () => {
  it.each([
    { name: 'a ClusterIP service with its ports and selector', printer: SERVICE_PRINTER, obj: svc({ type: 'ClusterIP', clusterIPs: ['10.100.0.2'], ports: [{ port: 2379, protocol: 'TCP' }], selector: { b: '2', a: '1' } }), want: ['basic-pd', 'ClusterIP', '10.100.0.2', '<none>', '2379/TCP', '5m3s', 'a=1,b=2'] },
    { name: 'a headless service', printer: SERVICE_PRINTER, obj: svc({ type: 'ClusterIP', clusterIPs: ['None'], ports: [] }), want: ['basic-pd', 'ClusterIP', 'None', '<none>', '<none>', '5m3s', '<none>'] },
    {
      name: 'a load balancer still pending, with a node port',
      printer: SERVICE_PRINTER,
      obj: svc({ type: 'LoadBalancer', clusterIPs: ['10.100.0.9'], ports: [{ port: 4000, nodePort: 30400, protocol: 'TCP' }] }),
      want: ['basic-pd', 'LoadBalancer', '10.100.0.9', '<pending>', '4000:30400/TCP', '5m3s', '<none>'],
    },
    {
      name: 'a load balancer with its hostname',
      printer: SERVICE_PRINTER,
      obj: svc({ type: 'LoadBalancer', clusterIPs: ['10.100.0.9'], ports: [{ port: 4000, protocol: 'TCP' }] }, { loadBalancer: { ingress: [{ hostname: 'a1.elb.amazonaws.com' }] } }),
      want: ['basic-pd', 'LoadBalancer', '10.100.0.9', 'a1.elb.amazonaws.com', '4000/TCP', '5m3s', '<none>'],
    },
    { name: 'endpoints: the first three, then how many more', printer: ENDPOINTS_PRINTER, obj: ep([{ addresses: [{ ip: '10.1.0.3' }, { ip: '10.1.0.4' }], ports: [{ port: 2379 }, { port: 2380 }] }]), want: ['basic-pd', '10.1.0.3:2379,10.1.0.4:2379,10.1.0.3:2380 + 1 more...', '5m3s'] },
    { name: 'endpoints without addresses', printer: ENDPOINTS_PRINTER, obj: ep([]), want: ['basic-pd', '<none>', '5m3s'] },
    {
      name: 'a ready node',
      printer: NODE_PRINTER,
      obj: node({ ready: 'True' }),
      want: ['node-1', 'Ready', '<none>', '5m3s', 'v1.34.1-eks', '192.168.0.11', '<none>', 'Amazon Linux 2023', '6.1', 'containerd://1.7'],
    },
    {
      name: 'a cordoned, not-ready node with roles',
      printer: NODE_PRINTER,
      obj: node({ ready: 'Unknown', unschedulable: true, labels: { 'node-role.kubernetes.io/worker': '', 'kubernetes.io/role': 'edge' } }),
      want: ['node-1', 'NotReady,SchedulingDisabled', 'edge,worker', '5m3s', 'v1.34.1-eks', '192.168.0.11', '<none>', 'Amazon Linux 2023', '6.1', 'containerd://1.7'],
    },
    { name: 'a node without a Ready condition', printer: NODE_PRINTER, obj: node({}), want: ['node-1', 'Unknown', '<none>', '5m3s', 'v1.34.1-eks', '192.168.0.11', '<none>', 'Amazon Linux 2023', '6.1', 'containerd://1.7'] },
    { name: 'a StatefulSet: ready of desired, containers and images', printer: STATEFULSET_PRINTER, obj: { metadata: meta('basic-pd'), spec: { replicas: 3, template }, status: { readyReplicas: 2 } }, want: ['basic-pd', '2/3', '5m3s', 'pd,log', 'pingcap/pd:v8.5.0,busybox:1'] },
    {
      name: 'a Deployment with its selector',
      printer: DEPLOYMENT_PRINTER,
      obj: { metadata: meta('basic-discovery'), spec: { replicas: 1, template, selector: { matchLabels: { 'app.kubernetes.io/name': 'tidb' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['b', 'a'] }] } }, status: { readyReplicas: 1, updatedReplicas: 1, availableReplicas: 1 } },
      want: ['basic-discovery', '1/1', 1, 1, '5m3s', 'pd,log', 'pingcap/pd:v8.5.0,busybox:1', 'app.kubernetes.io/name=tidb,tier in (a,b)'],
    },
    {
      name: 'a ControllerRevision names its controller with the group',
      printer: CONTROLLER_REVISION_PRINTER,
      obj: { metadata: meta('basic-pd-74568d87ff', { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'basic-pd', uid: 'u', controller: true }] }), revision: 2 },
      want: ['basic-pd-74568d87ff', 'statefulset.apps/basic-pd', 2, '5m3s'],
    },
    { name: 'a ConfigMap counts data and binaryData keys', printer: CONFIGMAP_PRINTER, obj: { metadata: meta('basic-pd'), data: { 'config-file': '', 'startup-script': '' }, binaryData: { x: '' } }, want: ['basic-pd', 3, '5m3s'] },
    { name: 'a Secret: type and keys', printer: SECRET_PRINTER, obj: { metadata: meta('tls'), type: 'kubernetes.io/tls', data: { 'tls.crt': '', 'tls.key': '' } }, want: ['tls', 'kubernetes.io/tls', 2, '5m3s'] },
    { name: 'a Role prints its creation time, not an age', printer: ROLE_PRINTER, obj: { metadata: meta('reader') }, want: ['reader', '2026-01-10T11:54:57Z'] },
    {
      name: 'a RoleBinding: its role and subjects by kind',
      printer: ROLE_BINDING_PRINTER,
      obj: { metadata: meta('read'), roleRef: { kind: 'Role', name: 'reader' }, subjects: [{ kind: 'User', name: 'ann' }, { kind: 'ServiceAccount', name: 'sa', namespace: 'demo' }, { kind: 'Group', name: 'ops' }, { kind: 'User', name: 'bob' }] },
      want: ['read', 'Role/reader', '5m3s', 'ann, bob', 'ops', 'demo/sa'],
    },
  ])('$name', ({ printer, obj, want }) => {
    expect(printer.cells(obj as KubeObject, NOW_MS)).toEqual(want);
    expect(printer.columns).toHaveLength(want.length);
  });

  it.each([
    { name: 'labels only, sorted', selector: { matchLabels: { z: '1', a: '2' } }, want: 'a=2,z=1' },
    { name: 'every operator', selector: { matchExpressions: [{ key: 'x', operator: 'NotIn', values: ['1'] }, { key: 'b', operator: 'Exists' }, { key: 'c', operator: 'DoesNotExist' }] }, want: 'b,!c,x notin (1)' },
    { name: 'no selector', selector: undefined, want: '' },
  ])('a selector prints as labels.Selector: $name', ({ selector, want }) => {
    expect(formatSelector(selector)).toBe(want);
  });
});

describe('storage kinds', () => {
  const pv = (extra: Record<string, unknown> = {}, metaExtra: Record<string, unknown> = {}): KubeObject => ({
    metadata: meta('pvc-1', { namespace: undefined, ...metaExtra }),
    spec: { capacity: { storage: '10Gi' }, accessModes: ['ReadWriteOncePod', 'ReadWriteOnce'], persistentVolumeReclaimPolicy: 'Retain', claimRef: { namespace: 'demo', name: 'pd-basic-pd-0' }, storageClassName: 'gp3', volumeMode: 'Filesystem', ...extra },
    status: { phase: 'Bound' },
  });
  const pvc = (spec: Record<string, unknown>, status: Record<string, unknown>): KubeObject => ({ metadata: meta('pd-basic-pd-0'), spec: { storageClassName: 'gp2', resources: { requests: { storage: '1Gi' } }, ...spec }, status });

  it.each([
    { name: 'a bound volume: access modes in kubectl order', printer: PV_PRINTER, obj: pv(), want: ['pvc-1', '10Gi', 'RWO,RWOP', 'Retain', 'Bound', 'demo/pd-basic-pd-0', 'gp3', '<unset>', '', '5m3s', 'Filesystem'] },
    { name: 'a deleted volume is Terminating', printer: PV_PRINTER, obj: pv({ claimRef: undefined, volumeMode: undefined }, { deletionTimestamp: ago(1) }), want: ['pvc-1', '10Gi', 'RWO,RWOP', 'Retain', 'Terminating', '', 'gp3', '<unset>', '', '5m3s', '<unset>'] },
    { name: 'a pending claim shows no capacity', printer: PVC_PRINTER, obj: pvc({}, { phase: 'Pending' }), want: ['pd-basic-pd-0', 'Pending', '', '', '', 'gp2', '<unset>', '5m3s', '<unset>'] },
    {
      name: 'a bound claim shows its volume\'s capacity and modes',
      printer: PVC_PRINTER,
      obj: pvc({ volumeName: 'pvc-1', volumeMode: 'Filesystem' }, { phase: 'Bound', capacity: { storage: '10Gi' }, accessModes: ['ReadWriteOnce'] }),
      want: ['pd-basic-pd-0', 'Bound', 'pvc-1', '10Gi', 'RWO', 'gp2', '<unset>', '5m3s', 'Filesystem'],
    },
    { name: 'the beta class annotation wins', printer: PVC_PRINTER, obj: { ...pvc({}, { phase: 'Pending' }), metadata: meta('c', { annotations: { 'volume.beta.kubernetes.io/storage-class': 'old' } }) }, want: ['c', 'Pending', '', '', '', 'old', '<unset>', '5m3s', '<unset>'] },
    { name: 'the default class, unset policies at their defaults', printer: STORAGE_CLASS_PRINTER, obj: { metadata: meta('gp2', { namespace: undefined, annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } }), provisioner: 'ebs.csi.aws.com' }, want: ['gp2 (default)', 'ebs.csi.aws.com', 'Delete', 'Immediate', false, '5m3s'] },
  ])('$name', ({ printer, obj, want }) => {
    expect(printer.cells(obj, NOW_MS)).toEqual(want);
  });
});
