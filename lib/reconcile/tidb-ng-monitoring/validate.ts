/**
 * v1's `ValidateTiDBNGMonitoring` (release-1.6 `validation.go`): at least one cluster (the CRD allows
 * exactly one), the top-level and `ngMonitoring` `env` / `additionalContainers`, `storageVolumes`;
 * plus the storage request, the image and the config, which v1 leaves to fail later (a refused claim,
 * a pod without an image, a server that cannot read its TOML). Problems name their field.
 */

import { parseTomlText } from '../member/config-data.js';
import { clustersProblems, componentProblems, storageRequestProblems, storageVolumeProblems } from '../companion/validate.js';
import { ngmImage } from './build.js';
import type { TidbNGMonitoring } from './types.js';

/** Every problem of the spec, in field order; empty when it is valid. */
export function validateNgMonitoring(tngm: TidbNGMonitoring): string[] {
  const spec = tngm.spec ?? {};
  const section = spec.ngMonitoring ?? {};
  const config = section.config;
  return [
    ...clustersProblems(spec.clusters, false),
    ...componentProblems(spec, 'spec'),
    ...componentProblems(section, 'spec.ngMonitoring'),
    ...storageVolumeProblems(section.storageVolumes, 'spec.ngMonitoring.storageVolumes'),
    ...storageRequestProblems(section.requests, 'spec.ngMonitoring.requests', 'a TidbNGMonitoring'),
    ...(ngmImage(tngm) === '' ? ['spec.ngMonitoring.baseImage: Required value: neither baseImage nor image names the ng-monitoring image'] : []),
    ...(typeof config === 'string' && config.trim() !== '' && parseTomlText(config) === undefined ? ['spec.ngMonitoring.config: Invalid value: not a TOML document (ng-monitoring-server would exit reading it)'] : []),
  ];
}
