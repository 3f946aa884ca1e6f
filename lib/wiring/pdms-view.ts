/**
 * Reading the PD microservices (`spec.pdms`, PD in `mode: ms`) into the PD view, as TiDB Operator
 * v1.6 reads them through PD (docs/reference/pd-microservices.md §4): each service's registered
 * servers on every step (`GET /pd/api/v2/ms/members/<svc>`, what its status sync records), and its
 * primary (`GET /pd/api/v2/ms/primary/<svc>`) only while that service upgrades — the
 * upgrade is the primary's one reader. A failed read is kept per service as its error; it never
 * fails the PD read (v1 only logs it, and the service's status is then not synced).
 */

import type { TidbCluster } from '../model/kube.js';
import type { PdMsView, PdView } from '../model/pd.js';
import type { PdPort } from '../pd/port.js';

/**
 * The microservices the cluster runs, in spec order: the names of `spec.pdms` when PD is in `ms`
 * mode (as v1: both are needed), else none.
 */
export function pdmsServicesOf(cluster: TidbCluster): string[] {
  if (cluster.spec.pd?.mode !== 'ms') return [];
  return (cluster.spec.pdms ?? []).map((s) => s.name);
}

/**
 * Whether service `service` is rolling out as far as the cluster's status says (`Upgrade`): the
 * status sync sets that phase whenever its StatefulSet is between revisions, and the upgrade sets it
 * when it writes the new pod template, so the steps that walk the partition all see it.
 */
export function isPdmsUpgrading(cluster: TidbCluster, service: string): boolean {
  return cluster.status?.pdms?.[service]?.phase === 'Upgrade';
}

const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

async function readService(pd: PdPort, service: string, withPrimary: boolean): Promise<PdMsView> {
  try {
    const [members, primary] = await Promise.all([pd.getMsMembers(service), withPrimary ? pd.getMsPrimary(service) : undefined]);
    return { members: members.map((m) => ({ name: m.name, serviceAddr: m.serviceAddr })), ...(primary === undefined ? {} : { primary }) };
  } catch (err) {
    return { error: errorText(err) };
  }
}

/** The view with `microservices` read (see the module comment); the view as it was when the cluster runs none. */
export async function withPdms(view: PdView, pd: PdPort, cluster: TidbCluster): Promise<PdView> {
  const services = pdmsServicesOf(cluster);
  if (services.length === 0) return view;
  const read = await Promise.all(services.map(async (s) => [s, await readService(pd, s, isPdmsUpgrading(cluster, s))] as const));
  return { ...view, microservices: Object.fromEntries(read) };
}
