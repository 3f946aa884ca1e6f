/**
 * PD's start script, the `startup-script` key of its ConfigMap (mounted as
 * `/usr/local/bin/pd_start_script.sh`), as TiDB Operator v1's start-script v1 template: wait until the
 * pod's peer DNS name resolves, then start `pd-server` joining from `<dataDir>/join`, or — on a fresh
 * data directory — with the arguments the discovery service hands out.
 */

import { clusterDomainSuffix, startScriptOpening, type StartScriptLayout } from '../../member/start-script.js';

/** What the script depends on. */
export type PdStartScriptOptions = {
  /** `/var/lib/pd`, or `/var/lib/pd/<dataSubDir>`. */
  readonly dataDir: string;
  /** `spec.pd.startTimeout` (seconds to wait for DNS; TiDB Operator: 30). */
  readonly startTimeoutSeconds: number;
  /** `http`, or `https` with cluster TLS. */
  readonly scheme: 'http' | 'https';
  /** `spec.clusterDomain` (`""` when unset): members are then named by FQDN. */
  readonly clusterDomain: string;
  /**
   * PD as the API service of PD microservices (`spec.pd.mode: ms` with `spec.pdms`): as v1.6, the
   * arguments begin with `services api` (docs/reference/pd-microservices.md §3).
   */
  readonly apiService?: boolean;
};

/** As TiDB Operator: 30 s to wait for the pod's DNS name. */
export const DEFAULT_PD_START_TIMEOUT_SECONDS = 30;

// As v1's PD template: blank lines around the annotations block, the debug block indented by spaces.
const PD_LAYOUT: StartScriptLayout = { blankLines: true, debugIndent: '    ' };

/** The script text. Guarantees: the same options give byte-identical text (it feeds the content hash). */
export function pdStartScript(o: PdStartScriptOptions): string {
  const domainSuffix = clusterDomainSuffix(o.clusterDomain);
  const name = o.clusterDomain === '' ? '${POD_NAME}' : '${domain}';
  return `${startScriptOpening('pd', PD_LAYOUT)}# the general form of variable PEER_SERVICE_NAME is: "<clusterName>-pd-peer"
cluster_name=\`echo \${PEER_SERVICE_NAME} | sed 's/-pd-peer//'\`
domain="\${POD_NAME}.\${PEER_SERVICE_NAME}.\${NAMESPACE}.svc${domainSuffix}"
discovery_url="\${cluster_name}-discovery.\${NAMESPACE}.svc:10261"
encoded_domain_url=\`echo \${domain}:2380 | base64 | tr "\\n" " " | sed "s/ //g"\`
elapseTime=0
period=1
threshold=${o.startTimeoutSeconds}
while true; do
sleep \${period}
elapseTime=$(( elapseTime+period ))

if [[ \${elapseTime} -ge \${threshold} ]]
then
echo "waiting for pd cluster ready timeout" >&2
exit 1
fi

if nslookup \${domain} 2>/dev/null
then
echo "nslookup domain \${domain}.svc success"
break
else
echo "nslookup domain \${domain} failed" >&2
fi
done

ARGS="${o.apiService === true ? ' services api ' : ''}--data-dir=${o.dataDir} \\
--name=${name} \\
--peer-urls=${o.scheme}://0.0.0.0:2380 \\
--advertise-peer-urls=${o.scheme}://\${domain}:2380 \\
--client-urls=${o.scheme}://0.0.0.0:2379 \\
--advertise-client-urls=${o.scheme}://\${domain}:2379 \\
--config=/etc/pd/pd.toml \\
"

if [[ -f ${o.dataDir}/join ]]
then
# The content of the join file is:
#   demo-pd-0=http://demo-pd-0.demo-pd-peer.demo.svc:2380,demo-pd-1=http://demo-pd-1.demo-pd-peer.demo.svc:2380
# The --join args must be:
#   --join=http://demo-pd-0.demo-pd-peer.demo.svc:2380,http://demo-pd-1.demo-pd-peer.demo.svc:2380
join=\`cat ${o.dataDir}/join | tr "," "\\n" | awk -F'=' '{print $2}' | tr "\\n" ","\`
join=\${join%,}
ARGS="\${ARGS} --join=\${join}"
elif [[ ! -d ${o.dataDir}/member/wal ]]
then
until result=$(wget -qO- -T 3 http://\${discovery_url}/new/\${encoded_domain_url} 2>/dev/null); do
echo "waiting for discovery service to return start args ..."
sleep $((RANDOM % 5))
done
ARGS="\${ARGS}\${result}"
fi

echo "starting pd-server ..."
sleep $((RANDOM % 10))
echo "/pd-server \${ARGS}"
exec /pd-server \${ARGS}
`;
}
