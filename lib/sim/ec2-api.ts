/**
 * The world's EC2 Query API over its EBS volumes (ebs-volumes.ts): `ModifyVolume` and
 * `DescribeVolumesModifications`, as the reconciler's EBS modifier calls them
 * (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_ModifyVolume.html,
 * …/API_DescribeVolumesModifications.html). A volume is an EBS CSI PersistentVolume's
 * `spec.csi.volumeHandle`; its tags are the ones the EBS CSI driver puts on the volumes it creates
 * (`CSIVolumeName`, `ebs.csi.aws.com/cluster`, `kubernetes.io/created-for/pvc/name`, …), which IAM
 * conditions can name. Errors are EC2's codes and XML: an unknown volume `InvalidVolume.NotFound`,
 * a volume never modified `InvalidVolumeModification.NotFound`, a modification while the last one
 * is still modifying or optimizing `IncorrectModificationState`, a second one within six hours of a
 * completed one `VolumeModificationRateExceeded`, a smaller size or an out-of-range IOPS / throughput
 * `InvalidParameterValue`. The Kubernetes objects are not touched: EBS CSI does not learn of a
 * modification made behind its back (the PV keeps its class and its capacity until a claim grows).
 */

import type { KubeObject } from './object.js';
import { parseQuantity } from './quantity.js';
import { EBS_PROVISIONER } from './storage-classes.js';
import type { ObjectStore } from './store.js';
import { type EbsVolumes, type VolumeModification, VolumeModificationRateExceeded, toGiB } from './ebs-volumes.js';

/** An EC2 answer: HTTP status and XML body. */
export type Ec2Answer = { readonly status: number; readonly body: string };

/** What IAM must allow for one call: the action, its resources, and the resource tags as condition keys. */
export type Ec2Authorization = { readonly action: string; readonly resources: readonly string[]; readonly context: Readonly<Record<string, string>> };

/** A volume's EBS attributes. */
type Attributes = { type: string; iops: number; throughput?: number };

const XMLNS = 'http://ec2.amazonaws.com/doc/2016-11-15/';

/** An EC2 error answer (`<Response><Errors><Error>`). */
export function ec2Error(status: number, code: string, message: string, requestId = 'sim'): Ec2Answer {
  const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return { status, body: `<?xml version="1.0" encoding="UTF-8"?>\n<Response><Errors><Error><Code>${esc(code)}</Code><Message>${esc(message)}</Message></Error></Errors><RequestID>${requestId}</RequestID></Response>` };
}

/** The world's EC2 for one region and account. */
export class SimEc2 {
  constructor(
    private readonly store: ObjectStore,
    private readonly ebs: EbsVolumes,
    private readonly where: { readonly partition: string; readonly region: string; readonly account: string },
  ) {}

  /**
   * What IAM must allow for `params` (`ModifyVolume`: the volume's ARN and tags; the describe: `*`,
   * as EC2 has no resource-level permission for it). A volume that does not exist has no tags, so a
   * tag-conditioned grant refuses it (`UnauthorizedOperation`) before EC2 could say NotFound.
   */
  authorizations(params: URLSearchParams): Ec2Authorization[] {
    const action = params.get('Action') ?? '';
    if (action !== 'ModifyVolume') return [{ action: `ec2:${action}`, resources: ['*'], context: {} }];
    const volumeId = params.get('VolumeId') ?? '';
    // A request missing its VolumeId fails validation (MissingParameter) before it is authorised.
    if (volumeId === '') return [];
    const pv = this.volume(volumeId);
    const tags = pv ? Object.fromEntries(Object.entries(tagsOf(pv)).map(([k, v]) => [`aws:ResourceTag/${k}`, v])) : {};
    return [{ action: 'ec2:ModifyVolume', resources: [`arn:${this.where.partition}:ec2:${this.where.region}:${this.where.account}:volume/${volumeId}`], context: tags }];
  }

  /** The answer to one Query API request. */
  answer(params: URLSearchParams): Ec2Answer {
    const action = params.get('Action');
    if (params.get('Version') !== '2016-11-15') return ec2Error(400, 'InvalidParameterValue', `Unsupported API version ${params.get('Version') ?? ''}`);
    if (action === 'DescribeVolumesModifications') return this.describe(params);
    if (action === 'ModifyVolume') return this.modify(params);
    return ec2Error(400, 'InvalidAction', `The action ${action ?? ''} is not valid for this web service.`);
  }

  private describe(params: URLSearchParams): Ec2Answer {
    const ids = [...params.keys()].filter((k) => /^VolumeId\.\d+$/.test(k)).map((k) => params.get(k) ?? '');
    const items: string[] = [];
    for (const id of ids) {
      const pv = this.volume(id);
      if (!pv) return ec2Error(400, 'InvalidVolume.NotFound', `The volume '${id}' does not exist.`);
      const m = this.ebs.describe(id);
      if (!m) return ec2Error(400, 'InvalidVolumeModification.NotFound', `Modification for volume '${id}' does not exist.`);
      items.push(`<item>${modificationXml(m)}</item>`);
    }
    return { status: 200, body: `<DescribeVolumesModificationsResponse xmlns="${XMLNS}"><requestId>sim</requestId><volumeModificationSet>${items.join('')}</volumeModificationSet></DescribeVolumesModificationsResponse>` };
  }

  private modify(params: URLSearchParams): Ec2Answer {
    const id = params.get('VolumeId');
    if (!id) return ec2Error(400, 'MissingParameter', 'The request must contain the parameter VolumeId');
    const pv = this.volume(id);
    if (!pv) return ec2Error(400, 'InvalidVolume.NotFound', `The volume '${id}' does not exist.`);
    // A volume still modifying or optimizing cannot be modified again (EC2: "Volume … cannot be
    // modified in modification state OPTIMIZING"); a completed one within six hours is the rate limit.
    const last = this.ebs.describe(id);
    if (last && last.state !== 'completed') return ec2Error(400, 'IncorrectModificationState', `Volume ${id} cannot be modified in modification state ${last.state.toUpperCase()}`);
    const size = this.sizeGiB(id, pv);
    const current = this.attributes(id, pv, size);
    const targetSize = params.has('Size') ? Number(params.get('Size')) : size;
    const type = params.get('VolumeType') ?? current.type;
    const iops = params.has('Iops') ? Number(params.get('Iops')) : type === 'gp3' ? Math.max(current.iops, 3000) : current.iops;
    const throughput = params.has('Throughput') ? Number(params.get('Throughput')) : type === 'gp3' ? (current.throughput ?? 125) : undefined;
    const invalid = invalidTarget(size, targetSize, type, iops, throughput, params.has('Throughput'));
    if (invalid) return ec2Error(400, 'InvalidParameterValue', invalid);
    const target = { type, iops: String(iops), ...(throughput === undefined ? {} : { throughput: String(throughput) }) };
    let m: VolumeModification;
    try {
      m = this.ebs.modify(id, size, targetSize, target);
    } catch (err) {
      if (err instanceof VolumeModificationRateExceeded) return ec2Error(400, err.code, err.message);
      throw err;
    }
    return { status: 200, body: `<ModifyVolumeResponse xmlns="${XMLNS}"><requestId>sim</requestId><volumeModification>${modificationXml(m)}</volumeModification></ModifyVolumeResponse>` };
  }

  /** The PersistentVolume of EBS volume `id` (an EBS CSI volume), or undefined. */
  private volume(id: string): KubeObject | undefined {
    if (id === '') return undefined;
    return this.store.list('PersistentVolume', undefined, (pv) => pv.spec?.csi?.driver === EBS_PROVISIONER && pv.spec.csi.volumeHandle === id)[0];
  }

  /** The volume's size now: its last modification's target once under way, else the PV's. */
  private sizeGiB(id: string, pv: KubeObject): number {
    const m = this.ebs.describe(id);
    const provisioned = toGiB(typeof pv.spec?.capacity?.storage === 'string' ? parseQuantity(pv.spec.capacity.storage) : 0);
    return m ? Math.max(m.targetSizeGiB, provisioned) : provisioned;
  }

  /** The volume's type, IOPS and throughput: its last modification's, else its StorageClass's (gp3: 3000 IOPS, 125 MiB/s; gp2: 3 IOPS/GiB, at least 100). */
  private attributes(id: string, pv: KubeObject, sizeGiB: number): Attributes {
    const last = this.ebs.describe(id)?.targetAttributes;
    const sc = this.store.get('StorageClass', undefined, String(pv.spec?.storageClassName ?? ''));
    const p = { ...((sc?.parameters ?? {}) as Record<string, string>), ...(last ?? {}) };
    const type = p['type'] ?? 'gp3';
    const iops = p['iops'] !== undefined ? Number(p['iops']) : type === 'gp3' ? 3000 : Math.max(100, 3 * sizeGiB);
    const throughput = p['throughput'] !== undefined ? Number(p['throughput']) : type === 'gp3' ? 125 : undefined;
    return { type, iops, ...(throughput === undefined ? {} : { throughput }) };
  }
}

/** One modification as EC2's XML fields (`VolumeModification`). */
function modificationXml(m: VolumeModification): string {
  const a = m.targetAttributes;
  const progress = m.state === 'completed' ? 100 : m.state === 'optimizing' ? 50 : 0;
  const fields: [string, string | number | undefined][] = [
    ['volumeId', m.volumeId],
    ['modificationState', m.state],
    ['targetSize', m.targetSizeGiB],
    ['targetIops', a['iops']],
    ['targetThroughput', a['throughput']],
    ['targetVolumeType', a['type']],
    ['originalSize', m.originalSizeGiB],
    ['progress', progress],
    ['startTime', new Date(m.startMs).toISOString()],
    ['endTime', m.state === 'completed' ? new Date(m.completedAtMs).toISOString() : undefined],
  ];
  return fields.flatMap(([k, v]) => (v === undefined ? [] : [`<${k}>${v}</${k}>`])).join('');
}

/** Why EC2 refuses this target (gp3 and io1/io2 limits, https://docs.aws.amazon.com/ebs/latest/userguide/ebs-volume-types.html), or undefined. */
function invalidTarget(size: number, targetSize: number, type: string, iops: number, throughput: number | undefined, throughputAsked: boolean): string | undefined {
  if (!Number.isInteger(targetSize) || targetSize < size) return `New size cannot be smaller than existing size (${size} GiB): ${targetSize}`;
  if (targetSize > 16384) return `Volume of ${targetSize} GiB is too large; maximum is 16384 GiB.`;
  if (!['gp2', 'gp3', 'io1', 'io2', 'st1', 'sc1', 'standard'].includes(type)) return `Value (${type}) for parameter volumeType is invalid.`;
  if (throughputAsked && type !== 'gp3') return `The parameter throughput is not supported for ${type} volumes.`;
  if (type === 'gp3') {
    if (!Number.isInteger(iops) || iops < 3000 || iops > 16000) return `Iops must be between 3000 and 16000 for gp3 volumes: ${iops}`;
    if (throughput !== undefined && (!Number.isInteger(throughput) || throughput < 125 || throughput > 1000)) return `Throughput must be between 125 and 1000 MiB/s for gp3 volumes: ${throughput}`;
    if (throughput !== undefined && throughput > iops / 4) return `Throughput (${throughput} MiB/s) is too high for the IOPS (${iops}); the maximum ratio is 0.25 MiB/s per IOPS.`;
  }
  if ((type === 'io1' || type === 'io2') && (!Number.isInteger(iops) || iops < 100 || iops > 64000)) return `Iops must be between 100 and 64000 for ${type} volumes: ${iops}`;
  return undefined;
}

/** The tags the EBS CSI driver puts on a volume it creates for a claim. */
export function tagsOf(pv: KubeObject): Record<string, string> {
  const ref = pv.spec?.claimRef as { namespace?: string; name?: string } | undefined;
  return {
    CSIVolumeName: pv.metadata.name ?? '',
    'ebs.csi.aws.com/cluster': 'true',
    ...(ref?.name ? { 'kubernetes.io/created-for/pvc/name': ref.name } : {}),
    ...(ref?.namespace ? { 'kubernetes.io/created-for/pvc/namespace': ref.namespace } : {}),
    'kubernetes.io/created-for/pv/name': pv.metadata.name ?? '',
  };
}
