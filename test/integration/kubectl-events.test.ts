/**
 * kubectl 1.34 against a running `tidb-reconciler sim serve` reads the world's Events as on EKS:
 * `describe pod` and `describe sts` list the scheduler's, the kubelet's and the StatefulSet
 * controller's Events (found through the API server's involvedObject field selectors), and
 * `get events` selects them by field.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type SimServe, startSimServe } from '../support/sim-serve.js';

let sim: SimServe;

const MANIFEST = `
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: web}
spec:
  serviceName: web
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: app, image: "nginx:1.27"}]
  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
`;

beforeAll(async () => {
  sim = await startSimServe('200ms');
  await sim.ok(['apply', '-f', '-'], MANIFEST);
  await sim.ok(['rollout', 'status', 'statefulset/web', '--timeout=60s']);
}, 120_000);

afterAll(async () => {
  await sim.stop();
}, 30_000);

describe('kubectl reads the world’s Events through sim serve', () => {
  it.each([
    {
      name: "describe pod lists the scheduler's and the kubelet's Events",
      args: ['describe', 'pod', 'web-0'],
      lines: [
        /Normal\s+Scheduled\s+\S+\s+default-scheduler\s+Successfully assigned default\/web-0 to node-\d/,
        /Normal\s+Pulled\s+\S+\s+kubelet\s+Container image "nginx:1\.27" already present on machine/,
        /Normal\s+Created\s+\S+\s+kubelet\s+Created container: app/,
        /Normal\s+Started\s+\S+\s+kubelet\s+Started container app/,
      ],
    },
    {
      name: "describe sts lists the StatefulSet controller's Events",
      args: ['describe', 'sts', 'web'],
      lines: [/Normal\s+SuccessfulCreate\s+\S+\s+statefulset-controller\s+create Claim data-web-0 Pod web-0 in StatefulSet web success/, /Normal\s+SuccessfulCreate\s+\S+\s+statefulset-controller\s+create Pod web-1 in StatefulSet web successful/],
    },
    {
      name: "describe pvc lists the provisioner's Events",
      args: ['describe', 'pvc', 'data-web-1'],
      lines: [/Normal\s+ProvisioningSucceeded\s+\S+\s+ebs\.csi\.aws\.com_ebs-csi-controller\s+Successfully provisioned volume pvc-/],
    },
  ])('$name', async ({ args, lines }) => {
    const out = await sim.ok(args);
    expect(out).toMatch(/^Events:$/m);
    for (const line of lines) expect(out).toMatch(line);
  });

  it('get events selects by involvedObject fields, and a scale-in adds the deletion', async () => {
    // Act
    await sim.ok(['scale', 'statefulset/web', '--replicas=1']);
    const deleted = await eventuallyOut(['get', 'events', '--field-selector', 'involvedObject.kind=StatefulSet,involvedObject.name=web,reason=SuccessfulDelete', '-o', 'jsonpath={.items[*].message}']);
    const pods = await sim.ok(['get', 'events', '--field-selector', 'involvedObject.name=web-0,source=kubelet', '-o', 'jsonpath={.items[*].reason}']);

    // Assess
    expect(deleted).toBe('delete Pod web-1 in StatefulSet web successful');
    expect(pods.split(' ').sort()).toEqual(['Created', 'Pulled', 'Started']);
  });
});

/** kubectl's output once it is not empty (the controller deletes on its next sync). */
async function eventuallyOut(args: string[]): Promise<string> {
  const end = Date.now() + 30_000;
  for (;;) {
    const out = (await sim.ok(args)).trim();
    if (out !== '' || Date.now() > end) return out;
    await new Promise((r) => setTimeout(r, 200));
  }
}
