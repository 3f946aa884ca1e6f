/**
 * What the components TiDB Operator v1 starts by a script (PD, TiKV, TiDB) share: the ConfigMap keys
 * `config-file` and `startup-script`, their volumes and mounts (`/etc/<c>/<c>.toml`,
 * `/usr/local/bin/<c>_start_script.sh`) and the container command, and the opening of every
 * start-script v1 template: the shebang and header comment, `set -uo pipefail`, the pod's
 * annotations sourced from the downward-API file (exit when it is missing), debug run mode
 * (`runmode=debug` idles the container), and `POD_NAME` falling back to `$HOSTNAME`. A component's
 * start-script.ts appends only its own arguments. The upstream templates differ in spacing, and the
 * text feeds the ConfigMap's content hash, so the layout is declared per component and kept to the byte.
 */

import type { IVolume } from 'kubernetes-models/v1/Volume';
import type { IVolumeMount } from 'kubernetes-models/v1/VolumeMount';

import type { MemberName } from './component.js';
import { configMapFileVolume } from './pod-volumes.js';

/** The ConfigMap keys of a component started by a script: its TOML file and its start script. */
export const SCRIPTED_CONFIG_KEYS = { config: 'config-file', script: 'startup-script' } as const;

/** As v1: the container command, the start script from the `startup-script` volume. */
export const startScriptCommand = (component: MemberName): string[] => ['/bin/sh', `/usr/local/bin/${component}_start_script.sh`];

/** As v1: the read-only mounts of the `config` volume at `/etc/<c>` and the `startup-script` volume at `/usr/local/bin`. */
export function scriptedConfigMounts(component: MemberName): IVolumeMount[] {
  return [
    { name: 'config', readOnly: true, mountPath: `/etc/${component}` },
    { name: 'startup-script', readOnly: true, mountPath: '/usr/local/bin' },
  ];
}

/** As v1: the `config` volume (`config-file` as `<c>.toml`) and the `startup-script` volume (as `<c>_start_script.sh`) of ConfigMap `configMap`. */
export function scriptedConfigVolumes(component: MemberName, configMap: string): IVolume[] {
  return [
    configMapFileVolume('config', configMap, SCRIPTED_CONFIG_KEYS.config, `${component}.toml`),
    configMapFileVolume('startup-script', configMap, SCRIPTED_CONFIG_KEYS.script, `${component}_start_script.sh`),
  ];
}

/** How a component's upstream template lays out the shared opening. */
export type StartScriptLayout = {
  /** Blank lines after the header comment and after `source` (PD's and TiKV's templates; TiDB's has none). */
  readonly blankLines: boolean;
  /** The indentation of the debug-mode block: four spaces (PD, TiDB) or a tab (TiKV). */
  readonly debugIndent: '    ' | '\t';
};

/**
 * The opening of `<component>`'s start script, up to and including the `POD_NAME` line (ends in a
 * newline). Guarantees: the same arguments give byte-identical text.
 */
export function startScriptOpening(component: string, layout: StartScriptLayout): string {
  const blank = layout.blankLines ? '\n' : '';
  const indent = layout.debugIndent;
  return `#!/bin/sh

# This script is used to start ${component} containers in kubernetes cluster

# Use DownwardAPIVolumeFiles to store informations of the cluster:
# https://kubernetes.io/docs/tasks/inject-data-application/downward-api-volume-expose-pod-information/#the-downward-api
#
#   runmode="normal/debug"
#
${blank}set -uo pipefail

ANNOTATIONS="/etc/podinfo/annotations"

if [[ ! -f "\${ANNOTATIONS}" ]]
then
    echo "\${ANNOTATIONS} does't exist, exiting."
    exit 1
fi
source \${ANNOTATIONS} 2>/dev/null
${blank}runmode=\${runmode:-normal}
if [[ X\${runmode} == Xdebug ]]
then
${indent}echo "entering debug mode."
${indent}tail -f /dev/null
fi

# Use HOSTNAME if POD_NAME is unset for backward compatibility.
POD_NAME=\${POD_NAME:-$HOSTNAME}
`;
}

/** The suffix a pod's DNS name under its peer Service takes for `spec.clusterDomain`: `""`, or `.<domain>` after `.svc`. */
export const clusterDomainSuffix = (clusterDomain: string): string => (clusterDomain === '' ? '' : `.${clusterDomain}`);

/**
 * The opening TiDB Operator v1.6's v2 start-script templates share (TiProxy, the PD microservices):
 * the pod's annotations sourced, debug mode honoured. Byte for byte as v1.6 renders it.
 */
export const V2_START_SCRIPT_OPENING = `#!/bin/sh

set -uo pipefail

ANNOTATIONS="/etc/podinfo/annotations"
if [[ ! -f "\${ANNOTATIONS}" ]]
then
    echo "\${ANNOTATIONS} does't exist, exiting."
    exit 1
fi
source \${ANNOTATIONS} 2>/dev/null

runmode=\${runmode:-normal}
if [[ X\${runmode} == Xdebug ]]
then
    echo "entering debug mode."
    tail -f /dev/null
fi

`;
