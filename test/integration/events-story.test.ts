/**
 * A day of a cluster read through its Events, as on EKS under TiDB Operator v1: the story
 * cluster-events-day2 creates a cluster, scales TiKV out, upgrades it and fails a TiKV store over.
 * The reconciler's Events (TiDB Operator v1's control and failover Events, reference spec §failover:
 * "tikv pod[<pod>] is unhealthy, msg:store[<id>] is Down") and the world's (scheduler, kubelet,
 * StatefulSet controller, provisioning) are listed against what those components record, each
 * repeat counted on one Event; and kubectl 1.34 `describe tc|pod|sts` shows them, through the API
 * server's Event field selectors (involvedObject.name, namespace, kind, uid).
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { ScenarioReport } from '../../lib/local/scenario/report.js';
import { simKubeconfig } from '../../lib/sim/kubeconfig.js';
import type { KubeObject } from '../../lib/sim/object.js';
import { SimApiServer } from '../../lib/sim/server.js';
import { kubectlFor } from '../support/kubectl.js';
import { runStoryAndInspect } from '../support/story.js';

type Row = { object: string; from: string; type: string; reason: string; message: string; count: number };
type Seen = { events: Row[]; duplicates: string[]; describe: Record<string, string>; selected: string };

let report: ScenarioReport;
let seen: Seen;

function row(e: KubeObject): Row {
  const o = e.involvedObject as { kind: string; name: string };
  const source = e.source as { component?: string } | undefined;
  return { object: `${o.kind}/${o.name}`, from: source?.component ?? '', type: String(e.type), reason: String(e.reason), message: String(e.message), count: Number(e.count) };
}

/** Events that aggregation should have made one: same involved object, field path, source, type, reason and message. */
function duplicates(events: readonly KubeObject[]): string[] {
  const seenKeys = new Map<string, number>();
  for (const e of events) {
    const o = e.involvedObject as { uid?: string; fieldPath?: string };
    const s = e.source as { component?: string; host?: string } | undefined;
    const key = JSON.stringify([o.uid, o.fieldPath, s?.component, s?.host, e.type, e.reason, e.message]);
    seenKeys.set(key, (seenKeys.get(key) ?? 0) + 1);
  }
  return [...seenKeys.entries()].filter(([, n]) => n > 1).map(([k]) => k);
}

beforeAll(async () => {
  const run = await runStoryAndInspect<Seen>('cluster-events-day2.yaml', {
    inspect: async (stack) => {
      const events = stack.world.store.list('Event', 'demo');
      // kubectl sends no bearer token over plain http: it reads the story's world through a second,
      // unauthenticated front on the same store (as `sim serve` without --rbac).
      const front = new SimApiServer(stack.world.store, stack.world.proxy, {});
      const kubectl = kubectlFor(simKubeconfig(await front.listen(0), undefined, 'demo'));
      try {
        const describe: Record<string, string> = {};
        for (const target of ['tc/basic', 'pod/basic-tikv-4', 'sts/basic-tikv']) {
          const r = await kubectl(['describe', target], { timeoutMs: 60_000 });
          describe[target] = r.code === 0 ? r.stdout : `kubectl failed (${r.code}): ${r.stderr}`;
        }
        const selected = await kubectl(['get', 'events', '--field-selector', 'involvedObject.kind=TidbCluster,type=Warning', '-o', 'custom-columns=REASON:.reason,COUNT:.count', '--no-headers'], { timeoutMs: 60_000 });
        return { events: events.map(row), duplicates: duplicates(events), describe, selected: selected.code === 0 ? selected.stdout : selected.stderr };
      } finally {
        await front.close();
      }
    },
  });
  report = run.report;
  seen = run.seen as Seen;
}, 600_000);

describe('a create → scale → upgrade → failover story, read through its Events', () => {
  it('passes', () => {
    expect(report.timeline.filter((t) => !t.ok)).toEqual([]);
    expect(report.passed).toBe(true);
  });

  it.each([
    // The reconciler: TiDB Operator v1's controls and failover (control-events.ts, the reference spec).
    { name: 'v1 creates the PD StatefulSet', object: 'TidbCluster/basic', from: 'tidb-reconciler', type: 'Normal', reason: 'SuccessfulCreate', message: /^create StatefulSet basic-pd in TidbCluster basic successful$/ },
    { name: 'v1 creates the TiKV StatefulSet', object: 'TidbCluster/basic', from: 'tidb-reconciler', type: 'Normal', reason: 'SuccessfulCreate', message: /^create StatefulSet basic-tikv in TidbCluster basic successful$/ },
    { name: 'v1 creates a Service', object: 'TidbCluster/basic', from: 'tidb-reconciler', type: 'Normal', reason: 'SuccessfulCreate', message: /^create Service basic-pd in TidbCluster basic successful$/ },
    { name: 'v1 creates the discovery Deployment through its generic control', object: 'TidbCluster/basic', from: 'tidb-reconciler', type: 'Normal', reason: 'Successfully Create', message: /^create Deployment\/basic-discovery for controller TidbCluster\/basic successfully$/ },
    { name: 'v1 updates the TiKV StatefulSet (scale, upgrade), counted on one Event', object: 'TidbCluster/basic', from: 'tidb-reconciler', type: 'Normal', reason: 'SuccessfulUpdate', message: /^update StatefulSet basic-tikv in TidbCluster basic successful$/, minCount: 2 },
    { name: 'v1 marks the Down store as a failure', object: 'TidbCluster/basic', from: 'tidb-reconciler', type: 'Warning', reason: 'Unhealthy', message: /^tikv pod\[basic-tikv-1\] is unhealthy, msg:store\[\d+\] is Down$/ },
    // The StatefulSet controller (stateful_pod_control.go).
    { name: 'the scale-out pod is created', object: 'StatefulSet/basic-tikv', from: 'statefulset-controller', type: 'Normal', reason: 'SuccessfulCreate', message: /^create Pod basic-tikv-3 in StatefulSet basic-tikv successful$/ },
    { name: "the scale-out pod's claim is created", object: 'StatefulSet/basic-tikv', from: 'statefulset-controller', type: 'Normal', reason: 'SuccessfulCreate', message: /^create Claim tikv-basic-tikv-3 Pod basic-tikv-3 in StatefulSet basic-tikv success$/ },
    { name: 'the rolling upgrade deletes each pod', object: 'StatefulSet/basic-tikv', from: 'statefulset-controller', type: 'Normal', reason: 'SuccessfulDelete', message: /^delete Pod basic-tikv-0 in StatefulSet basic-tikv successful$/ },
    // The set's tenth distinct SuccessfulCreate within 10 minutes of the last: client-go combines it with the others.
    { name: "the failover's replacement is created", object: 'StatefulSet/basic-tikv', from: 'statefulset-controller', type: 'Normal', reason: 'SuccessfulCreate', message: /^(\(combined from similar events\): )?create Pod basic-tikv-4 in StatefulSet basic-tikv successful$/ },
    // The scheduler, the kubelet, provisioning.
    { name: 'the replacement is scheduled', object: 'Pod/basic-tikv-4', from: 'default-scheduler', type: 'Normal', reason: 'Scheduled', message: /^Successfully assigned demo\/basic-tikv-4 to node-\d$/ },
    { name: 'the upgraded pod runs the new image', object: 'Pod/basic-tikv-0', from: 'kubelet', type: 'Normal', reason: 'Pulled', message: /^Container image "pingcap\/tikv:v8\.5\.1" already present on machine$/ },
    { name: 'the upgraded pod was stopped first', object: 'Pod/basic-tikv-0', from: 'kubelet', type: 'Normal', reason: 'Killing', message: /^Stopping container tikv$/ },
    { name: "the replacement's container starts", object: 'Pod/basic-tikv-4', from: 'kubelet', type: 'Normal', reason: 'Started', message: /^Started container tikv$/ },
    { name: "the replacement's volume is provisioned", object: 'PersistentVolumeClaim/tikv-basic-tikv-4', from: 'ebs.csi.aws.com_ebs-csi-controller', type: 'Normal', reason: 'ProvisioningSucceeded', message: /^Successfully provisioned volume pvc-/ },
  ])('$name', ({ object, from, type, reason, message, minCount }) => {
    const found = seen.events.filter((e) => e.object === object && e.from === from && e.type === type && e.reason === reason && message.test(e.message));
    expect(found).toHaveLength(1);
    expect(found[0]?.count).toBeGreaterThanOrEqual(minCount ?? 1);
  });

  it('repeats are counted on one Event, and the whole story stays within a bounded number of Events', () => {
    expect(seen.duplicates).toEqual([]);
    expect(seen.events.length).toBeLessThan(300);
  });

  it('the API server selects Events by field as kubectl asks (involvedObject.kind, type)', () => {
    const warnings = seen.events.filter((e) => e.object.startsWith('TidbCluster/') && e.type === 'Warning');
    expect(seen.selected.trim().split('\n').map((l) => l.trim().split(/\s+/)[0]).sort()).toEqual(warnings.map((e) => e.reason).sort());
  });

  it.each([
    { name: 'describe tc shows v1 events, repeats as (xN over …)', target: 'tc/basic', lines: [/Normal\s+SuccessfulCreate\s+\S+\s+tidb-reconciler\s+create StatefulSet basic-tikv in TidbCluster basic successful/, /Normal\s+SuccessfulUpdate\s+\S+ \(x\d+ over \S+\)\s+tidb-reconciler\s+update StatefulSet basic-tikv in TidbCluster basic successful/, /Warning\s+Unhealthy\s+\S+\s+tidb-reconciler\s+tikv pod\[basic-tikv-1\] is unhealthy, msg:store\[\d+\] is Down/] },
    { name: "describe pod shows the scheduler's and the kubelet's", target: 'pod/basic-tikv-4', lines: [/Normal\s+Scheduled\s+\S+\s+default-scheduler\s+Successfully assigned demo\/basic-tikv-4 to node-\d/, /Normal\s+Pulled\s+\S+\s+kubelet\s+Container image "pingcap\/tikv:v8\.5\.1" already present on machine/, /Normal\s+Created\s+\S+\s+kubelet\s+Created container: tikv/, /Normal\s+Started\s+\S+\s+kubelet\s+Started container tikv/] },
    { name: "describe sts shows the StatefulSet controller's", target: 'sts/basic-tikv', lines: [/Normal\s+SuccessfulCreate\s+\S+\s+statefulset-controller\s+(\(combined from similar events\): )?create Pod basic-tikv-4 in StatefulSet basic-tikv successful/, /Normal\s+SuccessfulDelete\s+\S+\s+statefulset-controller\s+delete Pod basic-tikv-0 in StatefulSet basic-tikv successful/] },
  ])('kubectl $name', ({ target, lines }) => {
    const out = seen.describe[target] ?? '';
    expect(out).toMatch(/^Events:$/m);
    for (const line of lines) expect(out).toMatch(line);
  });
});
