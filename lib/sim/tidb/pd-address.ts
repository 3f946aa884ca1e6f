/**
 * Which PD a TiKV, TiFlash, TiDB, TiCDC or Pump process joins: the one its command line names, as the
 * real binaries connect to the address they are given — `--pd=` (TiKV, TiCDC), `--path=` (TiDB),
 * `-pd-urls=` (Pump), in the container's command or the start script it runs, TiFlash's
 * `[raft] pd_addr` and TiProxy's `[proxy] pd-addrs` in its config file (which its command names). The address
 * `<name>-pd[.<namespace>[.svc…]]:2379` is the PD service of TidbCluster `<name>` (in the pod's
 * namespace unless another is named); `${CLUSTER_NAME}` is the pod's own cluster. With no address
 * found, or one of another shape, the process joins its own cluster's PD (its instance label).
 */
import type { PodInfo } from './pod-info.js';

/** A simulated TiDB cluster's key: where its PD and registries live. */
export type PdClusterKey = { readonly namespace: string; readonly name: string };

const FLAG = /(?:^|[\s"'])(?:--pd|--path|-pd-urls)[= ]["']?([^\s"'\\]+)/;
const SERVICE = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)-pd(?:\.([a-z0-9]([-a-z0-9]*[a-z0-9])?))?(?:\.svc(?:\.[^:/]*)?)?$/;

/** The host of the first address in `value` (`http://a-pd:2379,http://b-pd:2379` → `a-pd`). */
function hostOf(value: string): string {
  const first = value.split(',')[0] ?? '';
  return first.replace(/^[a-z]+:\/\//, '').replace(/[:/].*$/, '');
}

/** The PD address a config file names: TiFlash's `[raft] pd_addr`, TiProxy's `[proxy] pd-addrs`, when set. */
function configuredPdAddress(pod: PodInfo): string | undefined {
  const where: Partial<Record<PodInfo['component'], [string, string]>> = { tiflash: ['raft', 'pd_addr'], tiproxy: ['proxy', 'pd-addrs'] };
  const at = where[pod.component];
  if (at === undefined || !('ok' in pod.config)) return undefined;
  const section = pod.config.ok[at[0]];
  const address = typeof section === 'object' && section !== null ? (section as Record<string, unknown>)[at[1]] : undefined;
  return typeof address === 'string' ? address : undefined;
}

/** The PD cluster the process of `pod` joins (see the module comment). */
export function pdClusterOf(pod: PodInfo): PdClusterKey {
  const own = { namespace: pod.namespace, name: pod.cluster };
  const command = [...(pod.container.command ?? []), ...(pod.container.args ?? [])].join(' ');
  const address = configuredPdAddress(pod) ?? (FLAG.exec(command) ?? FLAG.exec(pod.startScript ?? ''))?.[1];
  if (!address || address.includes('${CLUSTER_NAME}')) return own;
  const service = SERVICE.exec(hostOf(address));
  if (!service?.[1]) return own;
  return { namespace: service[3] ?? pod.namespace, name: service[1] };
}
