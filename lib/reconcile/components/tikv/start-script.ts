/**
 * TiKV's start script, the `startup-script` key of its ConfigMap (mounted as
 * `/usr/local/bin/tikv_start_script.sh`), as TiDB Operator v1's start-script v1 template: read the
 * pod's annotations (debug run mode), then start `tikv-server` against PD's client Service,
 * advertising the pod's DNS name under the peer Service, with the capacity from `$CAPACITY`.
 */

/** What the script depends on. */
export type TikvStartScriptOptions = {
  /** `/var/lib/tikv`, or `/var/lib/tikv/<dataSubDir>`. */
  readonly dataDir: string;
  /** PD's client URL (`<scheme>://${CLUSTER_NAME}-pd:2379`, or the reference cluster's PD). */
  readonly pdAddress: string;
  /** `spec.clusterDomain` (`""` when unset): the advertised address then ends in `.svc.<domain>`. */
  readonly clusterDomain: string;
  /** `spec.preferIPv6`: listen on `[::]` rather than `0.0.0.0`. */
  readonly preferIPv6: boolean;
  /** `spec.enableDynamicConfiguration`: advertise the status address too. */
  readonly advertiseStatusAddr: boolean;
};

/** The script text. Guarantees: the same options give byte-identical text (it feeds the content hash). */
export function tikvStartScript(o: TikvStartScriptOptions): string {
  const domain = o.clusterDomain === '' ? '' : `.${o.clusterDomain}`;
  const host = o.preferIPv6 ? '[::]' : '0.0.0.0';
  const statusAdvertise = o.advertiseStatusAddr ? `\n--advertise-status-addr=\${POD_NAME}.\${HEADLESS_SERVICE_NAME}.\${NAMESPACE}.svc${domain}:20180 \\` : '';
  return `#!/bin/sh

# This script is used to start tikv containers in kubernetes cluster

# Use DownwardAPIVolumeFiles to store informations of the cluster:
# https://kubernetes.io/docs/tasks/inject-data-application/downward-api-volume-expose-pod-information/#the-downward-api
#
#   runmode="normal/debug"
#

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

# Use HOSTNAME if POD_NAME is unset for backward compatibility.
POD_NAME=\${POD_NAME:-$HOSTNAME}
ARGS="--pd=${o.pdAddress} \\
--advertise-addr=\${POD_NAME}.\${HEADLESS_SERVICE_NAME}.\${NAMESPACE}.svc${domain}:20160 \\
--addr=${host}:20160 \\
--status-addr=${host}:20180 \\${statusAdvertise}
--data-dir=${o.dataDir} \\
--capacity=\${CAPACITY} \\
--config=/etc/tikv/tikv.toml
"

if [ ! -z "\${STORE_LABELS:-}" ]; then
  LABELS=" --labels \${STORE_LABELS} "
  ARGS="\${ARGS}\${LABELS}"
fi

echo "starting tikv-server ..."
echo "/tikv-server \${ARGS}"
exec /tikv-server \${ARGS}
`;
}
