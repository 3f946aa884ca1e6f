/**
 * How a simulated PD process names and advertises itself, read from its start script as the shell
 * would evaluate it: the `domain="…"` line gives the host it advertises (`<pod>.<peer svc>.<ns>.svc`,
 * plus `.<clusterDomain>` when the script was rendered with one) and `--name=` says whether the member
 * is named by that host or by the pod name. A pod without a start script starts as the plain pod.
 */
import type { PodInfo } from './pod-info.js';

/** The member name and the host of the peer and client URLs. */
export type PdIdentity = { readonly name: string; readonly host: string };

const DOMAIN_LINE = /^domain="([^"]*)"\s*$/m;
const NAME_ARG = /--name=(\S+)/;

/** The identity of the PD process in `pod`; variables the script uses are the pod's own. */
export function pdIdentityOf(pod: PodInfo): PdIdentity {
  const vars: Record<string, string> = {
    POD_NAME: pod.name,
    HOSTNAME: pod.name,
    PEER_SERVICE_NAME: pod.env.PEER_SERVICE_NAME ?? pod.subdomain,
    NAMESPACE: pod.namespace,
  };
  const script = pod.startScript ?? '';
  const domainExpr = DOMAIN_LINE.exec(script)?.[1] ?? '${POD_NAME}.${PEER_SERVICE_NAME}.${NAMESPACE}.svc';
  const host = expand(domainExpr, vars);
  const nameExpr = NAME_ARG.exec(script)?.[1] ?? '${POD_NAME}';
  return { name: expand(nameExpr, { ...vars, domain: host }), host };
}

function expand(text: string, vars: Record<string, string>): string {
  return text.replace(/\$\{(\w+)\}/g, (_, name: string) => vars[name] ?? '');
}
