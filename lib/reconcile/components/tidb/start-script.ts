/**
 * TiDB's start script, the `startup-script` key of its ConfigMap (mounted as
 * `/usr/local/bin/tidb_start_script.sh`), as TiDB Operator v1's start-script v1 template: debug mode
 * from the pod's annotations, then `tidb-server` with TiKV as its store, advertising the pod's DNS
 * name under the peer Service, PD's client Service as its path, binlog and the slow-query file when
 * the environment asks for them.
 */

/** What the script depends on. */
export type TidbStartScriptOptions = {
  /** `<tc>-pd:2379` (with `spec.clusterDomain`: `<tc>-pd.<ns>.svc.<domain>:2379`). */
  readonly pdPath: string;
  /** `spec.clusterDomain` (`""` when unset): the advertised address is then an FQDN. */
  readonly clusterDomain: string;
};

/** The script text. Guarantees: the same options give byte-identical text (it feeds the content hash). */
export function tidbStartScript(o: TidbStartScriptOptions): string {
  const domain = o.clusterDomain === '' ? '' : `.${o.clusterDomain}`;
  return `#!/bin/sh

# This script is used to start tidb containers in kubernetes cluster

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
ARGS="--store=tikv \\
--advertise-address=\${POD_NAME}.\${HEADLESS_SERVICE_NAME}.\${NAMESPACE}.svc${domain} \\
--host=0.0.0.0 \\
--path=${o.pdPath} \\
--config=/etc/tidb/tidb.toml
"

if [[ X\${BINLOG_ENABLED:-} == Xtrue ]]
then
    ARGS="\${ARGS} --enable-binlog=true"
fi

SLOW_LOG_FILE=\${SLOW_LOG_FILE:-""}
if [[ ! -z "\${SLOW_LOG_FILE}" ]]
then
    ARGS="\${ARGS} --log-slow-query=\${SLOW_LOG_FILE:-}"
fi

echo "start tidb-server ..."
echo "/tidb-server \${ARGS}"
exec /tidb-server \${ARGS}
`;
}
