/**
 * EBS volume modifications as the rules see them (EC2's `VolumeModification`, as
 * `DescribeVolumesModifications` reports it) and as they ask for them (`ModifyVolume`'s target).
 */

/** EC2's `VolumeModificationState` values. */
export type EbsModificationState = 'modifying' | 'optimizing' | 'completed' | 'failed';

/** The target of a modification: what `ModifyVolume` is asked (fields left out stay as they are). */
export type EbsVolumeTarget = {
  readonly volumeId: string;
  /** Whole GiB. */
  readonly sizeGiB?: number;
  readonly iops?: number;
  /** MiB/s (gp3 only). */
  readonly throughput?: number;
  /** `gp2`, `gp3`, `io1`, `io2`, `st1`, `sc1`, `standard`. */
  readonly volumeType?: string;
};

/** One volume's last modification: its `Target*` fields and its state. */
export type EbsVolumeModification = EbsVolumeTarget & {
  readonly state: EbsModificationState;
  readonly startTime?: string;
};
