/**
 * EBS volume modifications as the reconciler asks EC2 for them (TiDB Operator v1.6's EBS modifier,
 * `pkg/manager/volumes/delegation/aws/ebs_modifier.go`, under its `VolumeModifying` feature gate):
 * `ModifyVolume` and `DescribeVolumesModifications`. The adapter is `query-client.ts` (EC2's Query
 * API, signed with SigV4); the world serves the same API (lib/sim/ec2-api.ts behind lib/local/ec2-endpoint.ts). Methods throw
 * the typed errors of `platform/errors.ts`; a refusal EC2 answers with a code is an `Ec2Error`
 * carrying that code (e.g. `VolumeModificationRateExceeded`, `InvalidVolume.NotFound`).
 */

import type { EbsModificationState, EbsVolumeModification, EbsVolumeTarget } from '../model/ebs.js';
import { TerminalError, TransientError } from '../platform/errors.js';

/** EC2's `VolumeModificationState` values. */
export type Ec2ModificationState = EbsModificationState;

/** The target of a modification: what `ModifyVolume` is asked (fields left out stay as they are). */
export type Ec2VolumeTarget = EbsVolumeTarget;

/** One volume's modification, as EC2 reports it (its `Target*` fields, its state). */
export type Ec2VolumeModification = EbsVolumeModification;

/** A refusal EC2 answered with an error code; retryable unless the code says the request is wrong. */
export class Ec2Error extends TransientError {
  constructor(
    readonly code: string,
    message: string,
    readonly httpStatus: number,
  ) {
    super(`${code}: ${message}`);
    this.name = 'Ec2Error';
  }
}

/** EC2's codes for a request that will never succeed as sent (a missing permission included). */
export class Ec2RequestError extends TerminalError {
  constructor(
    readonly code: string,
    message: string,
    readonly httpStatus: number,
  ) {
    super(`${code}: ${message}`);
    this.name = 'Ec2RequestError';
  }
}

/** EC2's code for a volume that was never modified (`DescribeVolumesModifications` of it). */
export const MODIFICATION_NOT_FOUND = 'InvalidVolumeModification.NotFound';

/** The EC2 calls of the EBS modifier. */
export interface Ec2Volumes {
  /**
   * The last modification of each of `volumeIds` that has one (a volume never modified is left
   * out: EC2's `InvalidVolumeModification.NotFound` is not an error here, as v1.6 reads it).
   */
  describeVolumesModifications(volumeIds: readonly string[], signal?: AbortSignal): Promise<Ec2VolumeModification[]>;
  /** Starts modifying a volume; resolves with the modification EC2 started. */
  modifyVolume(target: Ec2VolumeTarget, signal?: AbortSignal): Promise<Ec2VolumeModification>;
}
