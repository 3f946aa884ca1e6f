/**
 * The EC2 Query API client (lib/ec2/query-client.ts): what it sends (a form-encoded, SigV4-signed
 * POST for service `ec2`), how it reads EC2's XML answers, and how EC2's error codes become typed
 * errors (those a retry cannot fix are terminal; throttling is retried within the call).
 */
import { describe, expect, it } from '@jest/globals';

import { Ec2QueryClient, type Ec2Transport } from '../../lib/ec2/query-client.js';
import { Ec2Error, Ec2RequestError } from '../../lib/ec2/port.js';
import { TerminalError, TransientError } from '../../lib/platform/errors.js';

type Sent = Parameters<Ec2Transport>[0];

function clientAnswering(answers: { status: number; body: string }[]): { client: Ec2QueryClient; sent: Sent[] } {
  const sent: Sent[] = [];
  const transport: Ec2Transport = async (request) => {
    sent.push(request);
    const next = answers.shift();
    if (!next) throw new Error('no more answers');
    return next;
  };
  const client = new Ec2QueryClient({ region: 'us-west-2', credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' }, transport, now: () => new Date('2026-11-28T12:00:00Z'), maxAttempts: 3 });
  return { client, sent };
}

const modification = (state: string, extra = ''): string =>
  `<volumeId>vol-1</volumeId><modificationState>${state}</modificationState><targetSize>100</targetSize><targetIops>6000</targetIops><targetThroughput>500</targetThroughput><targetVolumeType>gp3</targetVolumeType>${extra}`;
const errorBody = (code: string, message: string): string => `<?xml version="1.0" encoding="UTF-8"?><Response><Errors><Error><Code>${code}</Code><Message>${message}</Message></Error></Errors><RequestID>r-1</RequestID></Response>`;

describe('the request', () => {
  it.each([
    { name: 'ModifyVolume names the volume and each target asked', call: (c: Ec2QueryClient) => c.modifyVolume({ volumeId: 'vol-1', iops: 6000, throughput: 500, volumeType: 'gp3' }), want: 'Action=ModifyVolume&Version=2016-11-15&VolumeId=vol-1&Iops=6000&Throughput=500&VolumeType=gp3', answer: `<ModifyVolumeResponse><volumeModification>${modification('modifying')}</volumeModification></ModifyVolumeResponse>` },
    { name: 'DescribeVolumesModifications lists the volumes as VolumeId.N', call: (c: Ec2QueryClient) => c.describeVolumesModifications(['vol-1', 'vol-2']), want: 'Action=DescribeVolumesModifications&Version=2016-11-15&VolumeId.1=vol-1&VolumeId.2=vol-2', answer: '<DescribeVolumesModificationsResponse><volumeModificationSet/></DescribeVolumesModificationsResponse>' },
  ])('$name, signed for ec2 in the region', async ({ call, want, answer }) => {
    // Prepare
    const { client, sent } = clientAnswering([{ status: 200, body: answer }]);
    // Act
    await call(client);
    // Assess
    const [request] = sent;
    expect(request?.url).toBe('https://ec2.us-west-2.amazonaws.com/');
    expect(request?.body).toBe(want);
    expect(request?.headers['content-type']).toBe('application/x-www-form-urlencoded; charset=utf-8');
    expect(request?.headers['authorization']).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/20261128\/us-west-2\/ec2\/aws4_request, SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date|^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/20261128\/us-west-2\/ec2\/aws4_request, SignedHeaders=content-type;host;x-amz-date/);
    expect(request?.headers['x-amz-date']).toBe('20261128T120000Z');
  });
});

describe('the answers', () => {
  it.each([
    { name: 'no modification is an empty list', body: '<DescribeVolumesModificationsResponse><volumeModificationSet/></DescribeVolumesModificationsResponse>', want: [] },
    { name: 'one item is read (not an array in the XML)', body: `<DescribeVolumesModificationsResponse><volumeModificationSet><item>${modification('optimizing')}</item></volumeModificationSet></DescribeVolumesModificationsResponse>`, want: [{ volumeId: 'vol-1', state: 'optimizing', sizeGiB: 100, iops: 6000, throughput: 500, volumeType: 'gp3' }] },
    { name: 'several items are read in order', body: `<DescribeVolumesModificationsResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><volumeModificationSet><item>${modification('completed')}</item><item><volumeId>vol-2</volumeId><modificationState>failed</modificationState><targetSize>50</targetSize></item></volumeModificationSet></DescribeVolumesModificationsResponse>`, want: [{ volumeId: 'vol-1', state: 'completed', sizeGiB: 100, iops: 6000, throughput: 500, volumeType: 'gp3' }, { volumeId: 'vol-2', state: 'failed', sizeGiB: 50 }] },
    { name: 'a volume never modified (InvalidVolumeModification.NotFound) is none, as v1.6 reads it', status: 400, body: errorBody('InvalidVolumeModification.NotFound', "Modification for volume 'vol-1' does not exist."), want: [] },
  ])('$name', async ({ status, body, want }) => {
    const { client } = clientAnswering([{ status: status ?? 200, body }]);
    await expect(client.describeVolumesModifications(['vol-1'])).resolves.toEqual(want);
  });
});

describe('EC2 error codes', () => {
  it.each([
    { name: 'the six-hour rule is a retryable Ec2Error with its code, not retried in the call', code: 'VolumeModificationRateExceeded', status: 400, type: Ec2Error, base: TransientError, calls: 1 },
    { name: 'a modification under way is a retryable Ec2Error', code: 'IncorrectModificationState', status: 400, type: Ec2Error, base: TransientError, calls: 1 },
    { name: 'a missing permission is terminal', code: 'UnauthorizedOperation', status: 403, type: Ec2RequestError, base: TerminalError, calls: 1 },
    { name: 'a missing volume is terminal', code: 'InvalidVolume.NotFound', status: 400, type: Ec2RequestError, base: TerminalError, calls: 1 },
    { name: 'throttling is retried within the call, then raised', code: 'RequestLimitExceeded', status: 503, type: Ec2Error, base: TransientError, calls: 3 },
  ])('$name', async ({ code, status, type, base, calls }) => {
    // Prepare
    const answers = Array.from({ length: 3 }, () => ({ status, body: errorBody(code, 'refused') }));
    const { client, sent } = clientAnswering(answers);
    // Act
    const err = await client.modifyVolume({ volumeId: 'vol-1', iops: 6000 }).catch((e: unknown) => e);
    // Assess
    expect(err).toBeInstanceOf(type);
    expect(err).toBeInstanceOf(base);
    expect((err as Ec2Error).code).toBe(code);
    expect((err as Error).message).toBe(`${code}: refused`);
    expect(sent).toHaveLength(calls);
  });

  it('a throttle then an answer succeeds within the call', async () => {
    const { client, sent } = clientAnswering([{ status: 503, body: errorBody('RequestLimitExceeded', 'slow down') }, { status: 200, body: `<ModifyVolumeResponse><volumeModification>${modification('modifying')}</volumeModification></ModifyVolumeResponse>` }]);
    await expect(client.modifyVolume({ volumeId: 'vol-1', iops: 6000 })).resolves.toMatchObject({ volumeId: 'vol-1', state: 'modifying', iops: 6000 });
    expect(sent).toHaveLength(2);
  });

  it('a non-XML failure is transient and names the status', async () => {
    const { client } = clientAnswering([{ status: 502, body: 'bad gateway' }, { status: 502, body: 'bad gateway' }, { status: 502, body: 'bad gateway' }]);
    await expect(client.describeVolumesModifications(['vol-1'])).rejects.toThrow('EC2 DescribeVolumesModifications: HTTP 502 bad gateway');
  });
});
