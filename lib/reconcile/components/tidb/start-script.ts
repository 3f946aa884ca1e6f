/**
 * TiDB's start script, the `startup-script` key of its ConfigMap (mounted as
 * `/usr/local/bin/tidb_start_script.sh`), as TiDB Operator v1's start-script v1 template: debug mode
 * from the pod's annotations, then `tidb-server` with TiKV as its store, advertising the pod's DNS
 * name under the peer Service, PD's client Service as its path, binlog and the slow-query file when
 * the environment asks for them.
 */

import { clusterDomainSuffix, startScriptOpening, type StartScriptLayout } from '../../member/start-script.js';

/** What the script depends on. */
export type TidbStartScriptOptions = {
  /** `<tc>-pd:2379` (with `spec.clusterDomain`: `<tc>-pd.<ns>.svc.<domain>:2379`). */
  readonly pdPath: string;
  /** `spec.clusterDomain` (`""` when unset): the advertised address is then an FQDN. */
  readonly clusterDomain: string;
};

// As v1's TiDB template: no blank lines around the annotations block, the debug block indented by spaces.
const TIDB_LAYOUT: StartScriptLayout = { blankLines: false, debugIndent: '    ' };

/** The script text. Guarantees: the same options give byte-identical text (it feeds the content hash). */
export function tidbStartScript(o: TidbStartScriptOptions): string {
  const domain = clusterDomainSuffix(o.clusterDomain);
  return `${startScriptOpening('tidb', TIDB_LAYOUT)}ARGS="--store=tikv \\
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
