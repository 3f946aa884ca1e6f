/**
 * v1's `ValidateTiDBDashboard` (release-1.6 `validation.go`): exactly one cluster, `env` and
 * `additionalContainers`, `storageVolumes`; plus the storage request and an image, which v1 leaves to
 * fail later (a refused claim, a pod without an image). Problems name their field.
 */

import { clustersProblems, componentProblems, storageRequestProblems, storageVolumeProblems } from '../companion/validate.js';
import { dashboardImage } from './build.js';
import type { TidbDashboard } from './types.js';

/** Every problem of the dashboard's spec, in field order; empty when it is valid. */
export function validateDashboard(td: TidbDashboard): string[] {
  const spec = td.spec ?? {};
  return [
    ...clustersProblems(spec.clusters, true),
    ...componentProblems(spec, 'spec'),
    ...storageVolumeProblems(spec.storageVolumes, 'spec.storageVolumes'),
    ...storageRequestProblems(spec.requests, 'spec.requests', 'a TidbDashboard'),
    ...(dashboardImage(td) === '' ? ['spec.baseImage: Required value: neither baseImage nor image names the TiDB Dashboard image'] : []),
  ];
}
