import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from '@jest/globals';

import { parseScenario } from '../../lib/local/scenario/file.js';
import type { Scenario } from '../../lib/local/scenario/types.js';

const SCENARIOS_DIR = join(import.meta.dirname, '..', 'scenarios');

// Six lines: the header of every file below, so `timeline:` is line 7 and its first entry line 8.
const HEAD = `name: t
cluster:
  metadata: {name: basic, namespace: demo}
  spec:
    pd: {replicas: 3}
    tikv: {replicas: 3}
`;

function withTimeline(...entries: string[]): string {
  return `${HEAD}timeline:\n${entries.map((e) => `  - ${e}\n`).join('')}`;
}

function parsed(text: string): Scenario {
  const result = parseScenario(text, 's.yaml');
  if (!result.ok) throw new Error(result.error);
  return result.scenario;
}

const KINDS = 'pod-down, pod-deleted, node-down, image-broken, pd-api-down, pd-schedulers-lost, pd-join-interrupted, kube-api-errors, step-crash, duplicate-delivery, s3-down, job-pod-killed, exporter-down, eks-api-down';
const VERBS = 'waitFor, patch, annotate, fault, heal, world, admin, advance, delete, apply, deleteObject, mark, expect';
const DURATION_HINT = 'use a number with a unit, e.g. 250ms, 90s, 5m, 1h30m';

describe('a bad file is rejected with one line naming the line, the field and what is wrong', () => {
  it.each<{ name: string; text: string; error: string }>([
    { name: 'YAML syntax', text: 'name: [x\n', error: 's.yaml:2: invalid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]' },
    { name: 'an empty file', text: '', error: 's.yaml: the file is empty (expected a mapping with name, cluster and timeline)' },
    { name: 'a list at the top', text: '- a\n', error: 's.yaml:1: expected a mapping with name, cluster and timeline, got a list' },
    { name: 'an unknown top-level field', text: `${HEAD}timelin: []\n`, error: 's.yaml:7: timelin: unknown field (expected one of: name, description, seed, config, sim, cluster, clusters, objects, accessEntries, timeline, expect)' },
    { name: 'a missing name', text: HEAD.replace('name: t\n', ''), error: 's.yaml:1: name: required field is missing' },
    { name: 'a name that is not text', text: HEAD.replace('name: t', 'name: 5'), error: 's.yaml:1: name: expected a string, got number 5' },
    { name: 'a seed that is not whole', text: `${HEAD}seed: 1.5\n`, error: 's.yaml:7: seed: expected a whole number, got number 1.5' },
    { name: 'a negative seed', text: `${HEAD}seed: -1\n`, error: 's.yaml:7: seed: -1 is out of range (0 to 4294967295)' },
    { name: 'an unknown config setting', text: `${HEAD}config: {pdFailoverPerid: 5m}\n`, error: 's.yaml:7: config.pdFailoverPerid: unknown field (expected one of: autoFailover, detectNodeFailure, pdFailoverPeriod, tikvFailoverPeriod, tidbFailoverPeriod, tiflashFailoverPeriod, sweepInterval, sweepSpread, componentAccess, watchNamespaces, apiRequestsPerSecond, exporterAtRest, featureGates)' },
    { name: 'an exporter mode at rest that is not one', text: `${HEAD}config: {exporterAtRest: sometimes}\n`, error: 's.yaml:7: config.exporterAtRest: unknown exporter mode at rest "sometimes" (expected one of: watch, catch-up)' },
    { name: 'a feature gate the reconciler does not have', text: `${HEAD}config: {featureGates: VolumeReplacing=true}\n`, error: 's.yaml:7: config.featureGates: FEATURE_GATES: "VolumeReplacing" is not a feature gate of this reconciler (VolumeModifying)' },
    { name: 'an unknown component access mode', text: `${HEAD}config: {componentAccess: vpn}\n`, error: 's.yaml:7: config.componentAccess: unknown component access mode "vpn" (expected one of: direct, api-proxy)' },
    { name: 'watchNamespaces that is not a list', text: `${HEAD}config: {watchNamespaces: default}\n`, error: 's.yaml:7: config.watchNamespaces: must be a non-empty list of namespace names, got the string "default"' },
    { name: 'a watched namespace that is not a DNS-1123 label', text: `${HEAD}config: {watchNamespaces: [default, Team_A]}\n`, error: `s.yaml:7: config.watchNamespaces: "Team_A" is not a namespace name (lower-case letters, digits and '-', 1-63 characters, starting and ending with a letter or digit)` },
    { name: 'a first cluster outside the watched namespaces', text: `${HEAD}config: {watchNamespaces: [tidb-a]}\n`, error: 's.yaml:7: config.watchNamespaces: the first cluster\'s namespace "demo" is not watched: list it, or put a watched cluster first' },
    { name: 'a malformed config duration', text: `${HEAD}config:\n  pdFailoverPeriod: 5 minutes\n`, error: `s.yaml:8: config.pdFailoverPeriod: invalid duration "5 minutes": ${DURATION_HINT}` },
    { name: 'a duration without a unit', text: `${HEAD}config: {tikvFailoverPeriod: 300}\n`, error: `s.yaml:7: config.tikvFailoverPeriod: invalid duration 300: ${DURATION_HINT}` },
    { name: 'autoFailover as text', text: `${HEAD}config: {autoFailover: "yes"}\n`, error: 's.yaml:7: config.autoFailover: expected true or false, got the string "yes"' },
    { name: 'a zero sweep interval', text: `${HEAD}config: {sweepInterval: 0s}\n`, error: 's.yaml:7: config.sweepInterval: duration "0s" must be more than 0' },
    { name: 'a config that is not a mapping', text: `${HEAD}config: [1]\n`, error: 's.yaml:7: config: expected a mapping, got a list' },
    { name: 'no nodes', text: `${HEAD}sim: {nodes: 0}\n`, error: 's.yaml:7: sim.nodes: 0 is out of range (1 to 100)' },
    { name: 'an unknown sim knob', text: `${HEAD}sim: {pdTick: 1s}\n`, error: 's.yaml:7: sim.pdTick: unknown field (expected one of: nodes, podStartup, storeRemoval, storeDrainRate, regionsPerStore, tiflashReplicas, leaderEviction, maxStoreDownTime, storageClasses, buckets, workload, latency, eksClusters, podIdentityAssociations)' },
    { name: 'both forms of the drain rate', text: `${HEAD}sim: {storeDrainRate: 60, storeRemoval: 1m}\n`, error: 's.yaml:7: sim.storeRemoval: give storeDrainRate or storeRemoval, not both' },
    { name: 'a drain rate of 0', text: `${HEAD}sim: {storeDrainRate: 0}\n`, error: 's.yaml:7: sim.storeDrainRate: must be above 0 (region replicas a minute), got 0' },
    { name: 'a negative TiFlash replica count', text: `${HEAD}sim: {tiflashReplicas: -1}\n`, error: 's.yaml:7: sim.tiflashReplicas: -1 is out of range (0 to 10)' },
    { name: 'a malformed sim duration', text: `${HEAD}sim: {podStartup: 5sec}\n`, error: `s.yaml:7: sim.podStartup: invalid duration "5sec": ${DURATION_HINT}` },
    { name: 'a missing cluster', text: 'name: t\n', error: 's.yaml:1: cluster: required field is missing' },
    { name: 'another kind', text: HEAD.replace('cluster:\n', 'cluster:\n  kind: Pod\n'), error: 's.yaml:3: cluster.kind: expected TidbCluster, got the string "Pod"' },
    { name: 'another API version', text: HEAD.replace('cluster:\n', 'cluster:\n  apiVersion: pingcap.com/v1\n'), error: 's.yaml:3: cluster.apiVersion: expected pingcap.com/v1alpha1, got the string "pingcap.com/v1"' },
    { name: 'a missing metadata.name', text: HEAD.replace('name: basic, ', ''), error: 's.yaml:3: cluster.metadata.name: required field is missing' },
    { name: 'an invalid metadata.name', text: HEAD.replace('name: basic', 'name: Basic_1'), error: 's.yaml:3: cluster.metadata.name: "Basic_1" is not a valid name (lowercase letters, digits and "-", starting and ending with a letter or digit, at most 63 characters)' },
    { name: 'a missing spec', text: 'name: t\ncluster: {metadata: {name: basic}}\n', error: 's.yaml:2: cluster.spec: required field is missing' },
    { name: 'a spec field the TidbCluster CRD does not have', text: HEAD.replace('pd: {replicas: 3}', 'pd: {replicas: 3, replica: 3}'), error: 's.yaml:5: cluster.spec.pd.replica: unknown field (the TidbCluster CRD has no such field)' },
    {
      name: 'a spec value of the wrong type, as the CRD schema words it',
      text: HEAD.replace('pd: {replicas: 3}', 'pd: {replicas: three}'),
      error: 's.yaml:5: cluster.spec.pd.replicas: Invalid value: "string": spec.pd.replicas in body must be of type integer: "string"',
    },
    { name: 'a spec value outside its enum', text: HEAD.replace('tikv: {replicas: 3}', 'tikv: {replicas: 3}\n    pvReclaimPolicy: Keep'), error: 's.yaml:7: cluster.spec.pvReclaimPolicy: Unsupported value: "Keep": supported values: "Delete", "Recycle", "Retain"' },
    { name: 'a timeline that is not a list', text: `${HEAD}timeline: {waitFor: ready}\n`, error: 's.yaml:7: timeline: expected a list of entries, got a mapping' },
    { name: 'an entry that is not a mapping', text: withTimeline('ready'), error: `s.yaml:8: timeline[0]: expected a mapping with one verb (${VERBS}), got the string "ready"` },
    { name: 'an unknown verb', text: withTimeline('waitFor: ready', 'waitfor: ready'), error: `s.yaml:9: timeline[1]: unknown verb "waitfor" (expected one of: ${VERBS})` },
    { name: 'no verb', text: withTimeline('timeout: 5m'), error: `s.yaml:8: timeline[0]: no verb (expected exactly one of: ${VERBS})` },
    { name: 'an expect without an earlier mark', text: withTimeline('expect: {since: live, podsKept: true}', 'mark: live'), error: 's.yaml:8: timeline[0].expect.since: no earlier mark: "live" (a mark: entry before this one names it)' },
    { name: 'an expect that checks nothing', text: withTimeline('mark: live', 'expect: {since: live}'), error: 's.yaml:9: timeline[1].expect: expected at least one of podsKept, reconcilerWrites' },
    { name: 'an expect with a misspelt kind', text: withTimeline('mark: live', 'expect: {since: live, reconcilerWrites: [tidbcluster]}'), error: 's.yaml:9: timeline[1].expect.reconcilerWrites[0]: expected Kind or Kind/status, got "tidbcluster"' },
    { name: 'a mark with an invalid name', text: withTimeline('mark: Live Now'), error: 's.yaml:8: timeline[0].mark: expected a name of lower-case letters, digits and dashes, got "Live Now"' },
    { name: 'two verbs', text: withTimeline('{advance: 1m, delete: true}'), error: 's.yaml:8: timeline[0]: more than one verb (advance, delete); an entry has exactly one' },
    { name: 'a timeout on another verb', text: withTimeline('{advance: 1m, timeout: 5m}'), error: 's.yaml:8: timeline[0].timeout: timeout is only allowed with waitFor, not with advance' },
    { name: 'a malformed timeout', text: withTimeline('{waitFor: ready, timeout: soon}'), error: `s.yaml:8: timeline[0].timeout: invalid duration "soon": ${DURATION_HINT}` },
    { name: 'an unknown condition', text: withTimeline('waitFor: redy'), error: 's.yaml:8: timeline[0].waitFor: unknown condition "redy" (expected ready, {component, phase} or {jsonpath, equals | notEquals | greaterThan, object?})' },
    { name: 'equals and greaterThan together', text: withTimeline('waitFor: {jsonpath: $.status.x, equals: 1, greaterThan: 2}'), error: 's.yaml:8: timeline[0].waitFor: give one of equals, notEquals or greaterThan' },
    { name: 'a greaterThan that is not an integer', text: withTimeline('waitFor: {jsonpath: $.status.x, greaterThan: 1.5}'), error: 's.yaml:8: timeline[0].waitFor.greaterThan: expected an integer or a string of digits, got number 1.5' },
    { name: 'a condition of another shape', text: withTimeline('waitFor: {status: ok}'), error: 's.yaml:8: timeline[0].waitFor: expected ready, {component, phase} or {jsonpath, equals | notEquals | greaterThan, object?}, got a mapping' },
    { name: 'an unknown component', text: withTimeline('waitFor: {component: tso, phase: Normal}'), error: 's.yaml:8: timeline[0].waitFor.component: unknown component "tso" (expected one of: pd, tikv, tiflash, tidb, ticdc, pump, tiproxy)' },
    { name: 'a component the cluster lacks', text: withTimeline('waitFor: {component: tidb, phase: Normal}'), error: 's.yaml:8: timeline[0].waitFor.component: the cluster has no tidb (neither spec.tidb nor a patch sets it)' },
    { name: 'an unknown phase', text: withTimeline('waitFor: {component: pd, phase: Upgrading}'), error: 's.yaml:8: timeline[0].waitFor.phase: unknown phase "Upgrading" (expected one of: Normal, Upgrade, Scale)' },
    { name: 'a stray condition field', text: withTimeline('waitFor: {component: pd, phase: Normal, for: 1m}'), error: 's.yaml:8: timeline[0].waitFor.for: unknown field (expected one of: component, phase)' },
    { name: 'a malformed JSONPath', text: withTimeline('waitFor: {jsonpath: "$.status..pd", equals: 1}'), error: 's.yaml:8: timeline[0].waitFor.jsonpath: invalid JSONPath "$.status..pd": recursive descent (..) is not supported at column 10' },
    { name: 'a JSONPath without equals', text: withTimeline('waitFor: {jsonpath: $.status.pd.phase}'), error: 's.yaml:8: timeline[0].waitFor.equals: required field is missing' },
    { name: 'a patch that is not a mapping', text: withTimeline('patch: [1]'), error: 's.yaml:8: timeline[0].patch: expected a mapping (a JSON merge patch of the TidbCluster), got a list' },
    { name: 'a patch renaming the cluster', text: withTimeline('patch: {metadata: {name: other}}'), error: "s.yaml:8: timeline[0].patch.metadata.name: a patch cannot change the TidbCluster's identity (apiVersion, kind, name, namespace)" },
    { name: 'a non-JSON number', text: withTimeline('patch: {spec: {pd: {replicas: .inf}}}'), error: 's.yaml:8: timeline[0].patch.spec.pd.replicas: Infinity is not a JSON number' },
    { name: 'an unquoted annotation value', text: withTimeline('annotate: {tidb.pingcap.com/force-upgrade: true}'), error: 's.yaml:8: timeline[0].annotate["tidb.pingcap.com/force-upgrade"]: expected a string or null, got boolean true (quote it: "true")' },
    { name: 'an invalid annotation key', text: withTimeline('annotate: {"bad key": "x"}'), error: 's.yaml:8: timeline[0].annotate["bad key"]: invalid annotation key (expected [prefix/]name, e.g. tidb.pingcap.com/force-upgrade)' },
    { name: 'an unknown fault kind', text: withTimeline('waitFor: ready', 'fault: {kind: pod-dwn, pod: basic-pd-1}'), error: `s.yaml:9: timeline[1].fault.kind: unknown fault kind "pod-dwn" (expected one of: ${KINDS})` },
    { name: 'a fault without kind', text: withTimeline('fault: {pod: basic-pd-1}'), error: 's.yaml:8: timeline[0].fault.kind: required field is missing' },
    { name: 'a fault missing its field', text: withTimeline('fault: {kind: node-down}'), error: 's.yaml:8: timeline[0].fault.node: required field is missing' },
    { name: 'a fault with a field of another kind', text: withTimeline('fault: {kind: pod-down, node: node-1}'), error: 's.yaml:8: timeline[0].fault.node: unknown field for a pod-down fault (expected one of: kind, pod)' },
    { name: 'a pod of another cluster', text: withTimeline('fault: {kind: pod-down, pod: demo-pd-1}'), error: 's.yaml:8: timeline[0].fault.pod: unknown pod "demo-pd-1" (pods are named basic-<component>-<ordinal>, e.g. basic-pd-0)' },
    { name: 'a pod of a component the cluster lacks', text: withTimeline('fault: {kind: pod-deleted, pod: basic-tidb-0}'), error: 's.yaml:8: timeline[0].fault.pod: unknown pod "basic-tidb-0": the cluster has no tidb' },
    { name: 'a pod ordinal the cluster never reaches', text: withTimeline('fault: {kind: pod-down, pod: basic-pd-6}'), error: 's.yaml:8: timeline[0].fault.pod: unknown pod "basic-pd-6": pd ordinals go up to 5 (replicas up to 3 + maxFailoverCount 3)' },
    { name: 'an unknown node', text: withTimeline('fault: {kind: node-down, node: node-3}'), error: 's.yaml:8: timeline[0].fault.node: unknown node "node-3" (the world has node-0..node-2; sim.nodes sets how many)' },
    { name: 'an error rate above 1', text: withTimeline('fault: {kind: kube-api-errors, rate: 1.5, for: 1m}'), error: 's.yaml:8: timeline[0].fault.rate: 1.5 is out of range (0 to 1)' },
    { name: 'a step crash that never happens', text: withTimeline('fault: {kind: step-crash, afterActions: 1, times: 0}'), error: 's.yaml:8: timeline[0].fault.times: 0 is out of range (at least 1)' },
    { name: 'a duplicate factor of 1', text: withTimeline('fault: {kind: duplicate-delivery, factor: 1, for: 1m}'), error: 's.yaml:8: timeline[0].fault.factor: 1 is out of range (2 to 10)' },
    { name: 'a malformed fault duration', text: withTimeline('fault: {kind: pd-api-down, for: 2 min}'), error: `s.yaml:8: timeline[0].fault.for: invalid duration "2 min": ${DURATION_HINT}` },
    { name: 'a pd-join-interrupted fault on a pod that is not PD', text: withTimeline('fault: {kind: pd-join-interrupted, pod: basic-tikv-0}'), error: 's.yaml:8: timeline[0].fault.pod: "basic-tikv-0" is not a pd pod (expected basic-pd-<ordinal>)' },
    { name: 'a pd-schedulers-lost fault without its duration', text: withTimeline('fault: {kind: pd-schedulers-lost}'), error: 's.yaml:8: timeline[0].fault.for: required field is missing' },
    { name: 'a heal of two things', text: withTimeline('heal: {pod: basic-pd-1, node: node-1}'), error: 's.yaml:8: timeline[0].heal: expected exactly one of pod, node, image, got pod and node' },
    { name: 'a heal of an unknown node', text: withTimeline('heal: {node: node-9}'), error: 's.yaml:8: timeline[0].heal.node: unknown node "node-9" (the world has node-0..node-2; sim.nodes sets how many)' },
    { name: 'a TiFlash replica count above the limit', text: withTimeline('world: {tiflashReplicas: 11}'), error: 's.yaml:8: timeline[0].world.tiflashReplicas: 11 is out of range (0 to 10)' },
    { name: 'a PD leader that is not a PD pod', text: withTimeline('world: {pdLeader: basic-tikv-0}'), error: 's.yaml:8: timeline[0].world.pdLeader: "basic-tikv-0" is not a pd pod (expected basic-pd-<ordinal>)' },
    { name: 'an empty PD config', text: withTimeline('world: {pdConfig: {}}'), error: 's.yaml:8: timeline[0].world.pdConfig: must set at least one PD setting' },
    { name: 'an unknown admin action', text: withTimeline('admin: {action: upgrade}'), error: 's.yaml:8: timeline[0].admin.action: unknown admin action "upgrade" (expected one of: reconcile, force-upgrade, pause, resume, status, history)' },
    { name: 'a force-upgrade without component', text: withTimeline('admin: {action: force-upgrade}'), error: 's.yaml:8: timeline[0].admin.component: required field is missing' },
    { name: 'a component on another admin action', text: withTimeline('admin: {action: pause, component: pd}'), error: 's.yaml:8: timeline[0].admin.component: component is only allowed with force-upgrade, not with pause' },
    { name: 'a limit on another admin action', text: withTimeline('admin: {action: status, limit: 3}'), error: 's.yaml:8: timeline[0].admin.limit: limit is only allowed with history, not with status' },
    { name: 'a history limit out of range', text: withTimeline('admin: {action: history, limit: 101}'), error: 's.yaml:8: timeline[0].admin.limit: 101 is out of range (1 to 100)' },
    { name: 'an admin caller that is an STS session', text: withTimeline('admin: {action: pause, as: "arn:aws:sts::000000000000:assumed-role/a/b"}'), error: 's.yaml:8: timeline[0].admin.as: expected an IAM role or user ARN (arn:aws:iam::000000000000:role/NAME), got "arn:aws:sts::000000000000:assumed-role/a/b"' },
    { name: 'an unknown expected answer', text: withTimeline('admin: {action: pause, expect: denied}'), error: 's.yaml:8: timeline[0].admin.expect: unknown expected answer "denied" (expected one of: forbidden)' },
    { name: 'an advance without a unit', text: withTimeline('advance: 10'), error: `s.yaml:8: timeline[0].advance: invalid duration 10: ${DURATION_HINT}` },
    { name: 'a delete that is not true', text: withTimeline('delete: false'), error: 's.yaml:8: timeline[0].delete: expected true, got boolean false' },
  ])('$name', ({ text, error }) => {
    // Act
    const result = parseScenario(text, 's.yaml');
    // Assess
    expect(result).toMatchObject({ ok: false, error });
    expect(error).not.toContain('\n');
  });

  it('a rejection also gives its field path and line apart', () => {
    const result = parseScenario(withTimeline('waitFor: ready', 'fault: {kind: pod-dwn, pod: basic-pd-1}'), 's.yaml');
    expect(result).toMatchObject({ ok: false, path: 'timeline[1].fault.kind', line: 9 });
  });
});

describe('clusters: several TidbClusters in one world', () => {
  const MAIN = '  - metadata: {name: basic, namespace: demo}\n    spec: {pd: {replicas: 3}, tikv: {replicas: 3}}\n';
  const HETERO = '  - metadata: {name: basic-hetero, namespace: demo}\n    spec: {cluster: {name: basic}, tikv: {replicas: 2}}\n';
  const file = (clusters: string, timeline = '  - waitFor: ready\n'): string => `name: t\nclusters:\n${clusters}timeline:\n${timeline}`;

  it('are read in order, the first one being the cluster the verbs act on', () => {
    const scenario = parsed(file(MAIN + HETERO));
    expect(scenario.clusters.map((c) => `${c.metadata.namespace}/${c.metadata.name}`)).toEqual(['demo/basic', 'demo/basic-hetero']);
    expect(scenario.cluster).toBe(scenario.clusters[0]);
  });

  it("pods of every cluster may be named, each checked against its own cluster's spec", () => {
    const scenario = parsed(file(MAIN + HETERO, '  - fault: {kind: pod-down, pod: basic-hetero-tikv-1}\n  - fault: {kind: pod-down, pod: basic-tikv-2}\n'));
    expect(scenario.timeline.map((t) => (t.verb === 'fault' && 'pod' in t.fault ? t.fault.pod : ''))).toEqual(['basic-hetero-tikv-1', 'basic-tikv-2']);
  });

  it.each<{ name: string; text: string; error: string }>([
    { name: 'both forms', text: `name: t\ncluster:\n  metadata: {name: basic}\n  spec: {}\nclusters:\n${MAIN}timeline: []\n`, error: 's.yaml:5: clusters: give either cluster (one TidbCluster) or clusters (a list), not both' },
    { name: 'an empty list', text: 'name: t\nclusters: []\ntimeline: []\n', error: 's.yaml:2: clusters: expected a non-empty list of TidbCluster manifests, got a list' },
    { name: 'the same cluster twice', text: file(MAIN + MAIN), error: 's.yaml:5: clusters[1].metadata.name: TidbCluster demo/basic is listed twice (also clusters[0])' },
    { name: 'a field the CRD does not have, in the second cluster', text: file(MAIN + '  - metadata: {name: b}\n    spec: {tikv: {replica: 1}}\n'), error: 's.yaml:6: clusters[1].spec.tikv.replica: unknown field (the TidbCluster CRD has no such field)' },
    { name: 'a pod beyond what its cluster can have', text: file(MAIN + HETERO, '  - fault: {kind: pod-down, pod: basic-hetero-tikv-5}\n'), error: 's.yaml:8: timeline[0].fault.pod: unknown pod "basic-hetero-tikv-5": tikv ordinals go up to 4 (replicas up to 2 + maxFailoverCount 3)' },
  ])('$name', ({ text, error }) => {
    const result = parseScenario(text, 's.yaml');
    expect(result.ok ? 'accepted' : result.error).toBe(error);
  });
});

describe('objects: Secrets and ConfigMaps created before the cluster', () => {
  const withObjects = (yaml: string): string => `${HEAD}objects:\n${yaml}timeline: []\n`;

  it.each<{ name: string; objects: string; error: string }>([
    { name: 'not a list', objects: '  a: 1\n', error: 's.yaml:7: objects: expected a list of manifests (Secret, ConfigMap, ServiceAccount, Role, RoleBinding, ClusterRole, ClusterRoleBinding, Backup, Restore, BackupSchedule, CompactBackup, TidbInitializer, TidbMonitor, TidbDashboard, TidbNGMonitoring, Deployment, VolumeAttributesClass, StorageClass), got a mapping' },
    { name: 'another kind', objects: '  - {apiVersion: v1, kind: Pod, metadata: {name: x}}\n', error: 's.yaml:8: objects[0].kind: expected one of: Secret, ConfigMap, ServiceAccount, Role, RoleBinding, ClusterRole, ClusterRoleBinding, Backup, Restore, BackupSchedule, CompactBackup, TidbInitializer, TidbMonitor, TidbDashboard, TidbNGMonitoring, Deployment, VolumeAttributesClass, StorageClass, got "Pod"' },
    { name: 'another apiVersion', objects: '  - {apiVersion: apps/v1, kind: Secret, metadata: {name: x}}\n', error: 's.yaml:8: objects[0].apiVersion: expected v1 for Secret, got "apps/v1"' },
    { name: 'an RBAC kind with the core apiVersion', objects: '  - {apiVersion: v1, kind: RoleBinding, metadata: {name: x}}\n', error: 's.yaml:8: objects[0].apiVersion: expected rbac.authorization.k8s.io/v1 for RoleBinding, got "v1"' },
    { name: 'a namespace on a cluster-scoped kind', objects: '  - {apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, metadata: {name: x, namespace: demo}}\n', error: 's.yaml:8: objects[0].metadata.namespace: unknown field (expected one of: name, labels, annotations)' },
    { name: 'no name', objects: '  - {apiVersion: v1, kind: Secret, metadata: {}}\n', error: 's.yaml:8: objects[0].metadata.name: required field is missing' },
    { name: 'an unknown field', objects: '  - {apiVersion: v1, kind: ConfigMap, metadata: {name: x}, stringData: {a: b}}\n', error: 's.yaml:8: objects[0].stringData: unknown field (expected one of: apiVersion, kind, metadata, data, binaryData, immutable)' },
    { name: 'Secret data that is not base64', objects: '  - {apiVersion: v1, kind: Secret, metadata: {name: x}, data: {tls.crt: not base64!}}\n', error: 's.yaml:8: objects[0].data["tls.crt"]: expected base64 (use stringData for plain text)' },
    { name: 'a non-string value', objects: '  - {apiVersion: v1, kind: Secret, metadata: {name: x}, stringData: {a: 1}}\n', error: 's.yaml:8: objects[0].stringData.a: expected a string, got number 1' },
    {
      name: 'the same object twice',
      objects: '  - {apiVersion: v1, kind: Secret, metadata: {name: x}}\n  - {apiVersion: v1, kind: Secret, metadata: {name: x, namespace: demo}}\n',
      error: 's.yaml:9: objects[1].metadata.name: Secret/demo/x is listed twice',
    },
  ])('$name', ({ objects, error }) => {
    const result = parseScenario(withObjects(objects), 's.yaml');
    expect(result.ok ? 'accepted' : result.error).toBe(error);
  });

  it('takes the cluster namespace by default and keeps the manifest', () => {
    const scenario = parsed(withObjects('  - {apiVersion: v1, kind: Secret, metadata: {name: basic-pd-cluster-secret}, type: kubernetes.io/tls, data: {ca.crt: Y2E=}}\n'));
    expect(scenario.objects).toEqual([
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'basic-pd-cluster-secret', namespace: 'demo' }, type: 'kubernetes.io/tls', data: { 'ca.crt': 'Y2E=' } },
    ]);
  });

  it('none when the section is left out', () => {
    expect(parsed(withTimeline()).objects).toEqual([]);
  });

  it('a RoleBinding takes the cluster namespace; a ClusterRole has none', () => {
    const scenario = parsed(withObjects('  - {apiVersion: rbac.authorization.k8s.io/v1, kind: RoleBinding, metadata: {name: b}, roleRef: {kind: ClusterRole, name: r}}\n  - {apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, metadata: {name: r}, rules: []}\n'));
    expect(scenario.objects.map((o) => [o.kind, o.metadata])).toEqual([['RoleBinding', { name: 'b', namespace: 'demo' }], ['ClusterRole', { name: 'r' }]]);
  });
});

describe('accessEntries: the simulated EKS access entries', () => {
  const withEntries = (yaml: string): string => `${HEAD}accessEntries:\n${yaml}timeline: []\n`;

  it.each<{ name: string; entries: string; error: string }>([
    { name: 'an STS session principal', entries: '  - {principalArn: "arn:aws:sts::000000000000:assumed-role/a/b"}\n', error: 's.yaml:8: accessEntries[0].principalArn: expected an IAM role or user ARN (arn:aws:iam::000000000000:role/NAME), got "arn:aws:sts::000000000000:assumed-role/a/b"' },
    { name: 'a principal listed twice', entries: '  - {principalArn: "arn:aws:iam::000000000000:role/a"}\n  - {principalArn: "arn:aws:iam::000000000000:role/a"}\n', error: 's.yaml:9: accessEntries[1].principalArn: arn:aws:iam::000000000000:role/a has an access entry already (one per principal, as in EKS)' },
    { name: 'the scenario operator', entries: '  - {principalArn: "arn:aws:iam::000000000000:role/scenario-operator"}\n', error: 's.yaml:8: accessEntries[0].principalArn: arn:aws:iam::000000000000:role/scenario-operator has an access entry already (one per principal, as in EKS)' },
    { name: 'a system: group', entries: '  - {principalArn: "arn:aws:iam::000000000000:role/a", kubernetesGroups: ["system:masters"]}\n', error: 's.yaml:8: accessEntries[0].kubernetesGroups[0]: EKS refuses groups starting with "system:" in access entries, got "system:masters"' },
    { name: 'an unknown field', entries: '  - {principalArn: "arn:aws:iam::000000000000:role/a", groups: [x]}\n', error: 's.yaml:8: accessEntries[0].groups: unknown field (expected one of: principalArn, username, kubernetesGroups)' },
  ])('$name is a file error', ({ entries, error }) => {
    const result = parseScenario(withEntries(entries), 's.yaml');
    expect(result.ok ? 'accepted' : result.error).toBe(error);
  });

  it('a role without a user name gets EKS\'s default one', () => {
    const scenario = parsed(withEntries('  - {principalArn: "arn:aws:iam::000000000000:role/ops/team-a", kubernetesGroups: [team-a]}\n'));
    expect(scenario.accessEntries).toEqual([{ principalArn: 'arn:aws:iam::000000000000:role/ops/team-a', username: 'arn:aws:sts::000000000000:assumed-role/team-a/{{SessionName}}', kubernetesGroups: ['team-a'], type: 'STANDARD' }]);
  });
});

describe('a file that leaves settings out gets the documented defaults', () => {
  it('seed 1, failover on with 5m periods, 5m sweep, direct component access, 3 nodes, 5s/30s/10s/30m knobs, namespace default, 30m waitFor timeout', () => {
    // Prepare
    const text = 'name: minimal\ncluster:\n  metadata: {name: basic}\n  spec: {pd: {replicas: 3}}\ntimeline:\n  - waitFor: ready\n';
    // Act
    const scenario = parsed(text);
    // Assess
    expect(scenario).toEqual({
      fileName: 's.yaml',
      name: 'minimal',
      description: '',
      seed: 1,
      config: { autoFailover: true, detectNodeFailure: false, failoverPeriodMs: { pd: 300_000, tikv: 300_000, tidb: 300_000, tiflash: 300_000 }, sweepIntervalMs: 300_000, componentAccess: 'direct' },
      sim: { nodes: 3, podStartupMs: 5_000, storeDrainPerMinute: 180, regionsPerStore: 90, tiflashReplicas: 0, leaderEvictionMs: 10_000, maxStoreDownTimeMs: 1_800_000, latency: { batchingWindowMs: 1000, coldStartMs: 600, exporterGapMs: 10_000, stepMs: 100 } },
      cluster: { apiVersion: 'pingcap.com/v1alpha1', kind: 'TidbCluster', metadata: { name: 'basic', namespace: 'default' }, spec: { pd: { replicas: 3 } } },
      clusters: [{ apiVersion: 'pingcap.com/v1alpha1', kind: 'TidbCluster', metadata: { name: 'basic', namespace: 'default' }, spec: { pd: { replicas: 3 } } }],
      objects: [],
      timeline: [{ index: 0, line: 6, verb: 'waitFor', until: { kind: 'ready' }, timeoutMs: 1_800_000 }],
    });
  });

  it.each<{ name: string; text: string; expected: Partial<Scenario> }>([
    { name: 'an empty config section means every default', text: `${HEAD}config:\n`, expected: { config: parsed(HEAD).config } },
    { name: 'a missing timeline is an empty one', text: HEAD, expected: { timeline: [] } },
    { name: 'settings given replace the defaults', text: `${HEAD}seed: 7\nconfig: {autoFailover: false, detectNodeFailure: true, pdFailoverPeriod: 1h30m, componentAccess: api-proxy}\nsim: {nodes: 5, podStartup: 250ms}\n`, expected: { seed: 7, config: { autoFailover: false, detectNodeFailure: true, failoverPeriodMs: { pd: 5_400_000, tikv: 300_000, tidb: 300_000, tiflash: 300_000 }, sweepIntervalMs: 300_000, componentAccess: 'api-proxy' }, sim: { nodes: 5, podStartupMs: 250, storeDrainPerMinute: 180, regionsPerStore: 90, tiflashReplicas: 0, leaderEvictionMs: 10_000, maxStoreDownTimeMs: 1_800_000, latency: { batchingWindowMs: 1000, coldStartMs: 600, exporterGapMs: 10_000, stepMs: 100 } } } },
    { name: 'the drain rate is given, or implied by storeRemoval for regionsPerStore replicas', text: `${HEAD}sim: {regionsPerStore: 900, storeRemoval: 5m, tiflashReplicas: 2}\n`, expected: { sim: { ...parsed(HEAD).sim, regionsPerStore: 900, storeDrainPerMinute: 180, tiflashReplicas: 2 } } },
    { name: 'an explicit drain rate', text: `${HEAD}sim: {storeDrainRate: 12.5}\n`, expected: { sim: { ...parsed(HEAD).sim, storeDrainPerMinute: 12.5 } } },
    { name: 'watched namespaces', text: `${HEAD}config: {watchNamespaces: [demo, tidb-b]}\n`, expected: { config: { ...parsed(HEAD).config, watchNamespaces: ['demo', 'tidb-b'] } } },
  ])('$name', ({ text, expected }) => {
    expect(parsed(text)).toMatchObject(expected);
  });
});

describe('timeline entries are read into typed steps', () => {
  it.each<{ name: string; entry: string; expected: object }>([
    { name: 'a phase wait', entry: '{waitFor: {component: pd, phase: Scale}, timeout: 90s}', expected: { verb: 'waitFor', until: { kind: 'phase', component: 'pd', phase: 'Scale' }, timeoutMs: 90_000 } },
    { name: 'a JSONPath wait keeps its source and value', entry: 'waitFor: {jsonpath: $.spec.pd.replicas, equals: 3}', expected: { verb: 'waitFor', until: { kind: 'jsonpath', path: { source: '$.spec.pd.replicas' }, equals: 3 } } },
    { name: 'a JSONPath wait above a TSO keeps its digits', entry: 'waitFor: {object: Backup/log, jsonpath: $.status.logCheckpointTs, greaterThan: "463267823616000000"}', expected: { until: { kind: 'jsonpath', object: { kind: 'Backup', name: 'log' }, greaterThan: '463267823616000000' } } },
    { name: 'a JSONPath wait for anything but null', entry: 'waitFor: {jsonpath: $.status.pd.leader, notEquals: null}', expected: { until: { kind: 'jsonpath', notEquals: null } } },
    { name: 'a JSONPath wait for null', entry: 'waitFor: {jsonpath: $.status.pd.failureMembers, equals: null}', expected: { until: { kind: 'jsonpath', equals: null } } },
    { name: 'an annotation removal', entry: 'annotate: {tidb.pingcap.com/force-upgrade: null}', expected: { verb: 'annotate', annotations: { 'tidb.pingcap.com/force-upgrade': null } } },
    { name: 'a kube-api-errors fault', entry: 'fault: {kind: kube-api-errors, rate: 0.2, for: 5m}', expected: { verb: 'fault', fault: { kind: 'kube-api-errors', rate: 0.2, forMs: 300_000 } } },
    { name: 'a step-crash fault', entry: 'fault: {kind: step-crash, afterActions: 0, times: 3}', expected: { fault: { kind: 'step-crash', afterActions: 0, times: 3 } } },
    { name: 'an image heal', entry: 'heal: {image: "pingcap/pd:v99"}', expected: { verb: 'heal', heal: { kind: 'image', image: 'pingcap/pd:v99' } } },
    { name: 'a PD config change', entry: 'world: {pdConfig: {replication: {max-replicas: 3, location-labels: [zone, host]}}}', expected: { verb: 'world', change: { kind: 'pdConfig', config: { replication: { 'max-replicas': 3, 'location-labels': ['zone', 'host'] } } } } },
    { name: 'a force-upgrade', entry: 'admin: {action: force-upgrade, component: pd}', expected: { verb: 'admin', admin: { action: 'force-upgrade', component: 'pd' } } },
    { name: 'an advance', entry: 'advance: 1h30m', expected: { verb: 'advance', durationMs: 5_400_000 } },
    { name: 'a delete', entry: 'delete: true', expected: { verb: 'delete' } },
  ])('$name', ({ entry, expected }) => {
    expect(parsed(withTimeline(entry)).timeline[0]).toMatchObject({ index: 0, line: 8, ...expected });
  });

  it.each([
    { name: 'a pod past the spec replicas but within failover', entry: 'fault: {kind: pod-down, pod: basic-pd-5}' },
    { name: 'a pod a later patch scales out to', entry: 'fault: {kind: pod-down, pod: basic-pd-7}', before: 'patch: {spec: {pd: {replicas: 5}}}' },
    { name: 'a pod of a component a patch adds', entry: 'fault: {kind: pod-down, pod: basic-tidb-1}', before: 'patch: {spec: {tidb: {replicas: 2}}}' },
    { name: 'the last node of a larger world', entry: 'fault: {kind: node-down, node: node-4}', sim: 'sim: {nodes: 5}\n' },
  ])('$name is accepted', ({ entry, before, sim }) => {
    const entries = before === undefined ? [entry] : [before, entry];
    expect(parseScenario((sim ?? '') + withTimeline(...entries), 's.yaml')).toMatchObject({ ok: true });
  });

  it('the manifest keeps its own fields and gets kind, apiVersion and namespace filled in', () => {
    const cluster = parsed('name: t\ncluster:\n  metadata: {name: basic, labels: {a: b}}\n  spec: {pd: {replicas: -1}}\n').cluster;
    expect(cluster).toEqual({
      apiVersion: 'pingcap.com/v1alpha1',
      kind: 'TidbCluster',
      metadata: { name: 'basic', namespace: 'default', labels: { a: 'b' } },
      spec: { pd: { replicas: -1 } },
    });
  });
});

describe('the project scenario files all parse', () => {
  const files = readdirSync(SCENARIOS_DIR).filter((f) => f.endsWith('.yaml'));

  it('there are scenario files', () => {
    expect(files.length).toBeGreaterThanOrEqual(7);
  });

  it.each(files.map((file) => ({ name: file, file })))('$name parses and its name matches the file', ({ file }) => {
    // Act
    const result = parseScenario(readFileSync(join(SCENARIOS_DIR, file), 'utf8'), file);
    // Assess
    if (!result.ok) throw new Error(result.error);
    expect(result.scenario.name).toBe(file.replace(/\.yaml$/, ''));
    expect(result.scenario.timeline.length).toBeGreaterThan(0);
  });
});

describe('sim.nodes as node pools', () => {
  const POOLS = `sim:
  nodes:
    - {name: general, count: 2}
    - {name: tikv, count: 3, labels: {dedicated: tikv}, taints: [{key: dedicated, value: tikv, effect: NoSchedule}], zones: [us-west-2a, us-west-2b]}
`;

  it('a list of pools is read with its labels, taints and zones, and nodes counts them all', () => {
    // Act
    const scenario = parsed(HEAD + POOLS);

    // Assess
    expect(scenario.sim.nodes).toBe(5);
    expect(scenario.sim.nodePools).toEqual([
      { name: 'general', count: 2 },
      { name: 'tikv', count: 3, labels: { dedicated: 'tikv' }, taints: [{ key: 'dedicated', value: 'tikv', effect: 'NoSchedule' }], zones: ['us-west-2a', 'us-west-2b'] },
    ]);
  });

  it.each([
    { name: 'a node of a pool', node: 'tikv-2', ok: true },
    { name: 'node-0, which a pool world does not have', node: 'node-0', ok: false },
    { name: 'a node past a pool\'s count', node: 'general-2', ok: false },
  ])('a timeline naming $name is checked against the pools', ({ node, ok }) => {
    // Act
    const result = parseScenario(POOLS + withTimeline(`fault: {kind: node-down, node: ${node}}`), 's.yaml');

    // Assess
    expect(result).toMatchObject(ok ? { ok: true } : { ok: false, error: `s.yaml:12: timeline[0].fault.node: unknown node "${node}" (the world's node pools have general-0..general-1, tikv-0..tikv-2; sim.nodes sets them)` });
  });

  it.each<{ name: string; sim: string; error: string }>([
    { name: 'an empty list', sim: 'sim: {nodes: []}\n', error: 's.yaml:7: sim.nodes: a list of node pools must have at least one pool' },
    { name: 'neither a count nor a list', sim: 'sim: {nodes: three}\n', error: 's.yaml:7: sim.nodes: expected a node count (1..100) or a list of node pools {name, count, labels, taints, zones}, got the string \"three\"' },
    { name: 'a pool without a count', sim: 'sim: {nodes: [{name: a}]}\n', error: 's.yaml:7: sim.nodes[0].count: required field is missing' },
    { name: 'a pool with a bad name', sim: 'sim: {nodes: [{name: Big_Pool, count: 1}]}\n', error: 's.yaml:7: sim.nodes[0].name: "Big_Pool" is not a valid pool name (lowercase letters, digits and "-", starting and ending with a letter or digit, at most 50 characters)' },
    { name: 'two pools of one name', sim: 'sim: {nodes: [{name: a, count: 1}, {name: a, count: 2}]}\n', error: 's.yaml:7: sim.nodes[1].name: duplicate pool name "a"' },
    { name: 'an unknown pool field', sim: 'sim: {nodes: [{name: a, count: 1, size: large}]}\n', error: 's.yaml:7: sim.nodes[0].size: unknown field (expected one of: name, count, labels, taints, zones)' },
    { name: 'a taint with an unknown effect', sim: 'sim: {nodes: [{name: a, count: 1, taints: [{key: k, effect: NoRun}]}]}\n', error: 's.yaml:7: sim.nodes[0].taints[0].effect: unknown taint effect "NoRun" (expected one of: NoSchedule, PreferNoSchedule, NoExecute)' },
    { name: 'a label value that is a number', sim: 'sim: {nodes: [{name: a, count: 1, labels: {tier: 1}}]}\n', error: 's.yaml:7: sim.nodes[0].labels.tier: expected a string (quote numbers and booleans), got number 1' },
    { name: 'an empty zone list', sim: 'sim: {nodes: [{name: a, count: 1, zones: []}]}\n', error: 's.yaml:7: sim.nodes[0].zones: must name at least one zone (leave it out for zone-a/b/c)' },
    { name: 'more nodes in all than the world may have', sim: 'sim: {nodes: [{name: a, count: 60}, {name: b, count: 41}]}\n', error: 's.yaml:7: sim.nodes: 101 nodes in all is out of range (at most 100)' },
  ])('$name is rejected naming the field', ({ sim, error }) => {
    // Act
    const result = parseScenario(HEAD + sim, 's.yaml');

    // Assess
    expect(result).toMatchObject({ ok: false, error });
  });
});

describe('scenario file: the cluster from a live cluster (simulate --from-kubeconfig)', () => {
  const live = { apiVersion: 'pingcap.com/v1alpha1', kind: 'TidbCluster', metadata: { name: 'basic', namespace: 'demo' }, spec: { pd: { replicas: 3 } } };

  it('a file without cluster takes the live one', () => {
    const result = parseScenario('name: s\ntimeline:\n  - waitFor: ready\n', 's.yaml', { cluster: live });
    expect(result.ok && result.scenario.cluster.metadata).toEqual({ name: 'basic', namespace: 'demo' });
  });

  it('a file with its own cluster is refused, naming cluster', () => {
    const result = parseScenario('name: s\ncluster: {metadata: {name: x}, spec: {}}\ntimeline: []\n', 's.yaml', { cluster: live });
    expect(result.ok ? 'accepted' : result.error).toBe('s.yaml:2: cluster: the cluster comes from --from-kubeconfig: leave cluster out of the file');
  });
});
