/**
 * A PD microservice's start script, the `startup-script` key of its ConfigMap (mounted as
 * `/usr/local/bin/pdms_start_script.sh`), as TiDB Operator v1.6's start-script v2 template for
 * `tso` and `scheduling` (docs/reference/pd-microservices.md §3): the common opening (annotations,
 * debug mode), wait until the pod's DNS name under `<tc>-<svc>-peer` resolves (up to PD's start
 * timeout), then `exec /pd-server services <svc>` listening on 2379 with PD's client Service as its
 * backend. `--name=<pod>` is passed from PD v8.3.0 on, as v1.6 does.
 */

import { V2_START_SCRIPT_OPENING, clusterDomainSuffix } from '../../member/start-script.js';

/** What the script depends on. */
export type PdmsStartScriptOptions = {
  /** `tso` or `scheduling`. */
  readonly service: string;
  /** `http`, or `https` with cluster TLS. */
  readonly scheme: 'http' | 'https';
  /** `<tc>-<svc>-peer`. */
  readonly peerService: string;
  /** The pods' namespace. */
  readonly namespace: string;
  /** `spec.clusterDomain` (`""` when unset). */
  readonly clusterDomain: string;
  /** `<scheme>://<tc>-pd:2379`: what the server registers with and serves through. */
  readonly backend: string;
  /** `spec.pd.startTimeout` (seconds to wait for DNS). */
  readonly startTimeoutSeconds: number;
  /** Whether the server takes `--name` (PD ≥ v8.3.0). */
  readonly named: boolean;
};

/** The script text. Guarantees: the same options give byte-identical text (it feeds the content hash). */
export function pdmsStartScript(o: PdmsStartScriptOptions): string {
  const domain = `\${PDMS_POD_NAME}.${o.peerService}.${o.namespace}.svc${clusterDomainSuffix(o.clusterDomain)}`;
  const name = o.clusterDomain === '' ? '${PDMS_POD_NAME}' : domain;
  const service = o.named ? `${o.service} --name=${name}` : o.service;
  return `${V2_START_SCRIPT_OPENING}PDMS_POD_NAME=\${POD_NAME:-$HOSTNAME}
PD_DOMAIN=${domain}

elapseTime=0
period=1
threshold=${o.startTimeoutSeconds}
while true; do
    sleep \${period}
    elapseTime=$(( elapseTime+period ))

    if [[ \${elapseTime} -ge \${threshold} ]]; then
        echo "waiting for pd cluster ready timeout" >&2
        exit 1
    fi

    digRes=$(dig \${PD_DOMAIN} A \${PD_DOMAIN} AAAA +search +short)
    if [ $? -ne 0  ]; then
        echo "domain resolve \${PD_DOMAIN} failed"
        echo "$digRes"
        continue
    fi

    if [ -z "\${digRes}" ]
    then
        echo "domain resolve \${PD_DOMAIN} no record return"
    else
        echo "domain resolve \${PD_DOMAIN} success"
        echo "$digRes"
        break
    fi
done

ARGS=" services ${service} --listen-addr=${o.scheme}://0.0.0.0:2379 \\
--advertise-listen-addr=${o.scheme}://\${PD_DOMAIN}:2379 \\
--backend-endpoints=${o.backend} \\
--config=/etc/pd/pd.toml \\
"

echo "starting pd-server ..."
sleep $((RANDOM % 10))
echo "/pd-server \${ARGS}"
exec /pd-server \${ARGS}
exit 0
`;
}
