/**
 * EBS volume modifications as EC2 runs them (`ModifyVolume`, `DescribeVolumesModifications`): a
 * modification goes `modifying` → `optimizing` → `completed`; the new size is usable once it is
 * `optimizing` (the EBS CSI driver's `ResizeOrModifyDisk` waits for `optimizing` or `completed`);
 * and a volume may not be modified again within six hours of its last modification — AWS: "After
 * modifying a volume, you must wait at least six hours and ensure that the volume is in the `in-use`
 * or `available` state before you can modify the same volume"
 * (https://docs.aws.amazon.com/ebs/latest/userguide/modify-volume-requirements.html); EC2 answers
 * `VolumeModificationRateExceeded`. Timing is virtual: `modifyingMs` (default 20 s) in `modifying`,
 * then `optimizingMsPerGiB` per GiB of the new size (default 1 s, at least a minute) in `optimizing`.
 */

import type { Clock } from '../platform/clock.js';

/** EC2's modification states. */
export type ModificationState = 'modifying' | 'optimizing' | 'completed';

/** One volume's last modification, as `DescribeVolumesModifications` reports it. */
export type VolumeModification = {
  readonly volumeId: string;
  readonly state: ModificationState;
  readonly targetSizeGiB: number;
  /** The target type, IOPS and throughput (`ModifyVolume`'s VolumeType, Iops, Throughput), when asked. */
  readonly targetAttributes: Readonly<Record<string, string>>;
  readonly originalSizeGiB: number;
  readonly startMs: number;
  /** When it reached `optimizing` (or will). */
  readonly optimizingAtMs: number;
  /** When it reached `completed` (or will). */
  readonly completedAtMs: number;
};

/** The wait EBS imposes between two modifications of one volume. */
export const EBS_MODIFY_COOLDOWN_MS = 6 * 60 * 60 * 1000;

/** EC2's refusal of a modification within six hours of the last one (its error code and message). */
export class VolumeModificationRateExceeded extends Error {
  readonly code = 'VolumeModificationRateExceeded';
  constructor(readonly volumeId: string, readonly retryAtMs: number) {
    super("You've reached the maximum modification rate per volume limit. Wait at least 6 hours between modifications per EBS volume.");
    this.name = 'VolumeModificationRateExceeded';
  }
}

/** Timing of the simulated EBS. */
export type EbsOptions = { modifyingMs?: number; optimizingMsPerGiB?: number };

/** The world's EBS volumes' modifications, on the world's clock. */
export class EbsVolumes {
  private readonly last = new Map<string, Omit<VolumeModification, 'state'>>();
  private readonly modifyingMs: number;
  private readonly optimizingMsPerGiB: number;

  constructor(private readonly clock: Clock, opts: EbsOptions = {}) {
    this.modifyingMs = opts.modifyingMs ?? 20_000;
    this.optimizingMsPerGiB = opts.optimizingMsPerGiB ?? 1_000;
  }

  /**
   * `ModifyVolume` to `targetSizeGiB`. Guarantees: throws `VolumeModificationRateExceeded` when the
   * volume's last modification started less than six hours ago (a retry of the very same
   * modification still in `modifying` is not a new one and is answered with it).
   */
  modify(volumeId: string, originalSizeGiB: number, targetSizeGiB: number, targetAttributes: Readonly<Record<string, string>> = {}): VolumeModification {
    const now = this.clock.nowMs();
    const previous = this.describe(volumeId);
    const same = previous !== undefined && previous.targetSizeGiB === targetSizeGiB && JSON.stringify(previous.targetAttributes) === JSON.stringify(targetAttributes);
    if (previous && same && previous.state !== 'completed') return previous;
    if (previous && now < previous.startMs + EBS_MODIFY_COOLDOWN_MS) throw new VolumeModificationRateExceeded(volumeId, previous.startMs + EBS_MODIFY_COOLDOWN_MS);
    const optimizingAtMs = now + this.modifyingMs;
    const completedAtMs = optimizingAtMs + Math.max(60_000, targetSizeGiB * this.optimizingMsPerGiB);
    this.last.set(volumeId, { volumeId, targetSizeGiB, targetAttributes, originalSizeGiB, startMs: now, optimizingAtMs, completedAtMs });
    return { ...this.last.get(volumeId), state: 'modifying' } as VolumeModification;
  }

  /** `DescribeVolumesModifications` for one volume: its last modification now, or undefined (never modified). */
  describe(volumeId: string): VolumeModification | undefined {
    const m = this.last.get(volumeId);
    if (!m) return undefined;
    const now = this.clock.nowMs();
    const state: ModificationState = now < m.optimizingAtMs ? 'modifying' : now < m.completedAtMs ? 'optimizing' : 'completed';
    return { ...m, state };
  }
}

/** Bytes in a GiB: EBS sizes are whole GiB. */
export const GIB = 2 ** 30;

/** The EBS size (whole GiB, rounded up, as the driver rounds a request) of `bytes`. */
export const toGiB = (bytes: number): number => Math.ceil(bytes / GIB);
