/**
 * The world's EC2 (lib/sim/ec2-api.ts) behind IAM (lib/local/ec2-endpoint.ts): what ModifyVolume and
 * DescribeVolumesModifications answer over the world's EBS volumes, EC2's error codes, and the
 * reconcile role's grants as the packaged template has them (a volume without the EBS CSI driver's
 * tag, or a role without the grant, is refused with `UnauthorizedOperation`).
 */
import { describe, expect, it } from '@jest/globals';

import { answerOf } from '../../lib/local/ec2-endpoint.js';
import { loadIamExtract } from '../../lib/local/iam/authority.js';
import type { IamExtract } from '../../lib/local/iam/extract.js';
import { localIam } from '../../lib/local/iam/identities.js';
import { errorOf, answerOf as readAnswer } from '../../lib/ec2/query-client.js';
import { VirtualClock } from '../../lib/platform/clock.js';
import { EbsVolumes } from '../../lib/sim/ebs-volumes.js';
import { SimEc2 } from '../../lib/sim/ec2-api.js';
import { ObjectStore } from '../../lib/sim/store.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');

function world(extract: IamExtract = loadIamExtract()) {
  const clock = new VirtualClock(T0);
  const store = new ObjectStore(clock);
  store.create('StorageClass', { metadata: { name: 'gp3' }, provisioner: 'ebs.csi.aws.com', parameters: { type: 'gp3' } });
  store.create('PersistentVolume', { metadata: { name: 'pvc-1' }, spec: { storageClassName: 'gp3', capacity: { storage: '10Gi' }, csi: { driver: 'ebs.csi.aws.com', volumeHandle: 'vol-1' }, claimRef: { namespace: 'demo', name: 'tikv-basic-tikv-0' } } });
  store.create('PersistentVolume', { metadata: { name: 'local-1' }, spec: { storageClassName: 'local', capacity: { storage: '10Gi' }, local: { path: '/mnt/disks/vol1' } } });
  const ebs = new EbsVolumes(clock);
  const iam = localIam({ extract });
  const ec2 = new SimEc2(store, ebs, iam.resolver);
  const key = iam.credentialsOf('reconcile').accessKeyId;
  const call = (params: Partial<Record<string, string>>, accessKey = key) => answerOf(ec2, iam, { method: 'POST', headers: { authorization: `AWS4-HMAC-SHA256 Credential=${accessKey}/20260101/us-east-1/ec2/aws4_request, SignedHeaders=host, Signature=x` } }, new URLSearchParams({ Version: '2016-11-15', ...(params as Record<string, string>) }));
  return { clock, ec2, call, iam };
}

const codeOf = (answer: { status: number; body: string }): string => (errorOf('X', answer) as { code?: string }).code ?? '';

describe("the world's EC2 answers as EC2", () => {
  it.each([
    { name: 'a volume never modified: InvalidVolumeModification.NotFound', params: { Action: 'DescribeVolumesModifications', 'VolumeId.1': 'vol-1' }, status: 400, code: 'InvalidVolumeModification.NotFound' },
    { name: 'an unknown volume: InvalidVolume.NotFound', params: { Action: 'DescribeVolumesModifications', 'VolumeId.1': 'vol-9' }, status: 400, code: 'InvalidVolume.NotFound' },
    { name: 'modifying an unknown volume: no tag, so the tag-conditioned grant refuses it', params: { Action: 'ModifyVolume', VolumeId: 'vol-9', Iops: '6000' }, status: 403, code: 'UnauthorizedOperation' },
    { name: 'a volume the EBS CSI driver did not create (no tag) is refused', params: { Action: 'ModifyVolume', VolumeId: 'local-1', Iops: '6000' }, status: 403, code: 'UnauthorizedOperation' },
    { name: 'no VolumeId: MissingParameter', params: { Action: 'ModifyVolume' }, status: 400, code: 'MissingParameter' },
    { name: 'a smaller size: InvalidParameterValue', params: { Action: 'ModifyVolume', VolumeId: 'vol-1', Size: '5' }, status: 400, code: 'InvalidParameterValue' },
    { name: 'gp3 IOPS above 16000: InvalidParameterValue', params: { Action: 'ModifyVolume', VolumeId: 'vol-1', Iops: '20000' }, status: 400, code: 'InvalidParameterValue' },
    { name: 'gp3 throughput above a quarter of the IOPS: InvalidParameterValue', params: { Action: 'ModifyVolume', VolumeId: 'vol-1', Iops: '3000', Throughput: '1000' }, status: 400, code: 'InvalidParameterValue' },
    { name: 'an action the role is not granted (DeleteVolume) is refused by IAM first', params: { Action: 'DeleteVolume', VolumeId: 'vol-1' }, status: 403, code: 'UnauthorizedOperation' },
    { name: 'an unknown access key: AuthFailure', params: { Action: 'DescribeVolumesModifications', 'VolumeId.1': 'vol-1' }, key: 'AKIAUNKNOWN', status: 401, code: 'AuthFailure' },
  ])('$name', ({ params, status, code, key }) => {
    const w = world();
    const answer = w.call(params, key);
    expect({ status: answer.status, code: codeOf(answer) }).toEqual({ status, code });
  });

  it('a modification goes modifying → optimizing → completed; another is refused while it runs (IncorrectModificationState) and within six hours after (VolumeModificationRateExceeded)', async () => {
    // Prepare
    const w = world();
    // Act
    const started = readAnswer('ModifyVolume', w.call({ Action: 'ModifyVolume', VolumeId: 'vol-1', Iops: '6000', Throughput: '500', VolumeType: 'gp3' }));
    const states: string[] = [];
    const whileOptimizing: string[] = [];
    for (const ms of [0, 20_000, 60_000]) {
      await w.clock.advance(ms);
      const d = readAnswer('DescribeVolumesModifications', w.call({ Action: 'DescribeVolumesModifications', 'VolumeId.1': 'vol-1' })) as { volumeModificationSet: { item: { modificationState: string } } };
      states.push(d.volumeModificationSet.item.modificationState);
      if (states.at(-1) !== 'completed') whileOptimizing.push(codeOf(w.call({ Action: 'ModifyVolume', VolumeId: 'vol-1', Iops: '7000' })));
    }
    const again = w.call({ Action: 'ModifyVolume', VolumeId: 'vol-1', Iops: '10000' });
    // Assess
    expect(started['volumeModification']).toMatchObject({ volumeId: 'vol-1', modificationState: 'modifying', targetIops: '6000', targetThroughput: '500', targetVolumeType: 'gp3', targetSize: '10', originalSize: '10' });
    expect(states).toEqual(['modifying', 'optimizing', 'completed']);
    expect(whileOptimizing).toEqual(['IncorrectModificationState', 'IncorrectModificationState']);
    expect({ status: again.status, code: codeOf(again) }).toEqual({ status: 400, code: 'VolumeModificationRateExceeded' });
  });
});

describe("IAM as the packaged template grants it", () => {
  it('the reconcile role may modify an EBS CSI volume (its ebs.csi.aws.com/cluster tag) and describe modifications', () => {
    const w = world();
    expect(w.call({ Action: 'ModifyVolume', VolumeId: 'vol-1', Iops: '6000' }).status).toBe(200);
    expect(w.call({ Action: 'DescribeVolumesModifications', 'VolumeId.1': 'vol-1' }).status).toBe(200);
  });

  it('without the grant EC2 refuses with UnauthorizedOperation and IAM\'s message', () => {
    // Prepare: the reconcile role without its EC2 statements
    const extract = loadIamExtract();
    const role = extract.roles['ReconcileRole'];
    if (!role) throw new Error('no ReconcileRole');
    const stripped = { ...extract, roles: { ...extract.roles, ReconcileRole: { ...role, statements: role.statements.filter((s) => !JSON.stringify(s.Action).includes('ec2:')) } } };
    const w = world(stripped);
    // Act
    const answer = w.call({ Action: 'ModifyVolume', VolumeId: 'vol-1', Iops: '6000' });
    // Assess
    expect(answer.status).toBe(403);
    expect(codeOf(answer)).toBe('UnauthorizedOperation');
    expect(answer.body).toContain('is not authorized to perform: ec2:ModifyVolume on resource: arn:aws:ec2:us-east-1:000000000000:volume/vol-1');
  });
});
