/**
 * TiProxy's start script, as TiDB Operator v1.6's `RenderTiProxyStartScript` (the v2 start-script
 * template): the common opening — annotations sourced, debug run mode — then `/bin/tiproxy
 * --config=/etc/proxy/proxy.toml`, with `--advertise-addr=<pod>.<tc>-tiproxy-peer.<ns>.svc[.<domain>]`
 * when the binary knows the flag (older TiProxy versions do not).
 */

import type { TidbCluster } from '../../../model/kube.js';
import { V2_START_SCRIPT_OPENING, clusterDomainSuffix } from '../../member/start-script.js';
import { tiproxyPeerServiceName } from './names.js';

/** The start script (byte for byte as v1.6 renders it; the text feeds the ConfigMap). */
export function tiproxyStartScript(tc: TidbCluster): string {
  const advertise = `\${TIPROXY_POD_NAME}.${tiproxyPeerServiceName(tc)}.${tc.metadata.namespace ?? ''}.svc${clusterDomainSuffix(tc.spec.clusterDomain ?? '')}`;
  return `${V2_START_SCRIPT_OPENING}TIPROXY_POD_NAME=\${POD_NAME:-$HOSTNAME}
ARGS="--config=/etc/proxy/proxy.toml"
if [[ "$(/bin/tiproxy --help)" == *"advertise-addr"* ]]; then
  ARGS="\${ARGS} --advertise-addr=${advertise}"
fi

echo "starting: tiproxy \${ARGS}"
exec /bin/tiproxy \${ARGS}
`;
}
