/**
 * TiKV's start script, the `startup-script` key of its ConfigMap (mounted as
 * `/usr/local/bin/tikv_start_script.sh`), as TiDB Operator v1's start-script v1 template: read the
 * pod's annotations (debug run mode), then start `tikv-server` against PD's client Service,
 * advertising the pod's DNS name under the peer Service, with the capacity from `$CAPACITY`.
 */

import { clusterDomainSuffix, startScriptOpening, type StartScriptLayout } from '../../member/start-script.js';

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

// As v1's TiKV template: blank lines around the annotations block, the debug block indented by a tab.
const TIKV_LAYOUT: StartScriptLayout = { blankLines: true, debugIndent: '\t' };

/** The script text. Guarantees: the same options give byte-identical text (it feeds the content hash). */
export function tikvStartScript(o: TikvStartScriptOptions): string {
  const domain = clusterDomainSuffix(o.clusterDomain);
  const host = o.preferIPv6 ? '[::]' : '0.0.0.0';
  const statusAdvertise = o.advertiseStatusAddr ? `\n--advertise-status-addr=\${POD_NAME}.\${HEADLESS_SERVICE_NAME}.\${NAMESPACE}.svc${domain}:20180 \\` : '';
  return `${startScriptOpening('tikv', TIKV_LAYOUT)}ARGS="--pd=${o.pdAddress} \\
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
