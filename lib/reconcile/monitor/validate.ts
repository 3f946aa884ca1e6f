/**
 * What a TidbMonitor must satisfy before anything is deployed for it. First v1's own checks
 * (`ValidateTidbMonitor`, release-1.6 `pkg/apis/pingcap/v1alpha1/validation/validation.go:91-105`): each
 * Service's `loadBalancerSourceRanges` are CIDRs, `prometheus.retentionTime` is a Prometheus duration,
 * and a `persistent` monitor names a `storage` quantity. Then, stricter than v1, what v1 would leave to a
 * broken pod or a failing render: every image has a base image and a version, `clusters[].name` is
 * set, `shards` and `replicas` are not negative, a remote write has a URL and the Prometheus version is
 * semver (v1's render fails "Invalid Semantic Version" on every sync), and what this reconciler does
 * not deploy (DM clusters, Thanos, Ingresses, additional containers) is refused by name instead of
 * silently left out. Every message names the field. Pure.
 */

import { quantityValue } from '../cluster/validate.js';
import type { MonitorServiceSpec, TidbMonitor } from './types.js';

/** One problem: the field's path and what is wrong with it. */
export type MonitorProblem = { readonly field: string; readonly message: string };

// Prometheus's `model.ParseDuration`: one or more <number><unit>, units y w d h m s ms, largest first.
const PROM_DURATION = /^(?:(\d+)y)?(?:(\d+)w)?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?(?:(\d+)ms)?$/;
const SEMVER = /^v?\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;
const CIDR_V4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/;
const CIDR_V6 = /^[0-9a-fA-F:]+\/(\d{1,3})$/;

/** Every problem of the spec, v1's checks first; empty when valid. */
export function validateMonitor(tm: TidbMonitor): MonitorProblem[] {
  const spec = tm.spec ?? {};
  const problems: MonitorProblem[] = [];
  if (spec.grafana !== undefined) problems.push(...serviceProblems(spec.grafana.service, 'spec.grafana.service'));
  problems.push(...serviceProblems(spec.prometheus?.service, 'spec.prometheus.service'));
  const retention = spec.prometheus?.retentionTime;
  if (retention !== undefined && !isPromDuration(retention)) {
    problems.push({ field: 'spec.prometheus.retentionTime', message: `${JSON.stringify(retention)} must be a valid Prometheus duration string, e.g. 2h` });
  }
  problems.push(...serviceProblems(spec.reloader?.service, 'spec.reloader.service'));
  if (spec.persistent === true) {
    if ((spec.storage ?? '') === '') problems.push({ field: 'spec.storage', message: 'storage must not be empty when spec.persistent is true' });
    else if (quantityValue(spec.storage) === undefined) problems.push({ field: 'spec.storage', message: `value ${JSON.stringify(spec.storage)} of "storage" format not supported` });
  }
  problems.push(...stricterProblems(tm));
  return problems;
}

/** One line for an Event and a condition: v1's aggregate form (`field: message`, joined). */
export function describeProblems(problems: readonly MonitorProblem[]): string {
  const parts = problems.map((p) => `${p.field}: ${p.message}`);
  return parts.length === 1 ? (parts[0] ?? '') : `[${parts.join(', ')}]`;
}

function stricterProblems(tm: TidbMonitor): MonitorProblem[] {
  const spec = tm.spec ?? {};
  const problems: MonitorProblem[] = [];
  (spec.clusters ?? []).forEach((c, i) => {
    if ((c.name ?? '') === '') problems.push({ field: `spec.clusters[${i}].name`, message: 'Required value: the TidbCluster to monitor' });
  });
  const images: [string, { baseImage?: string; version?: string } | undefined][] = [
    ['spec.prometheus', spec.prometheus],
    ['spec.reloader', spec.reloader],
    ['spec.initializer', spec.initializer],
    ...(spec.grafana === undefined ? [] : ([['spec.grafana', spec.grafana]] as [string, { baseImage?: string; version?: string }][])),
    ...(spec.prometheusReloader === undefined ? [] : ([['spec.prometheusReloader', spec.prometheusReloader]] as [string, { baseImage?: string; version?: string }][])),
  ];
  for (const [path, image] of images) {
    if ((image?.baseImage ?? '') === '') problems.push({ field: `${path}.baseImage`, message: 'Required value: the image to run' });
    if ((image?.version ?? '') === '') problems.push({ field: `${path}.version`, message: 'Required value: the image tag to run' });
  }
  if (spec.shards !== undefined && spec.shards < 0) problems.push({ field: 'spec.shards', message: `${spec.shards} must be greater than or equal to 0` });
  if (spec.replicas !== undefined && spec.replicas < 0) problems.push({ field: 'spec.replicas', message: `${spec.replicas} must be greater than or equal to 0` });
  const remote = spec.prometheus?.remoteWrite ?? [];
  remote.forEach((r, i) => {
    if ((r.url ?? '') === '') problems.push({ field: `spec.prometheus.remoteWrite[${i}].url`, message: 'Required value: where Prometheus writes' });
  });
  if (remote.length > 0 && !SEMVER.test(spec.prometheus?.version ?? '')) {
    problems.push({ field: 'spec.prometheus.version', message: `${JSON.stringify(spec.prometheus?.version ?? '')} is not a semantic version; remote write needs one to render its config` });
  }
  const unsupported: [string, unknown][] = [
    ['spec.dm', spec.dm?.clusters !== undefined && spec.dm.clusters.length > 0 ? spec.dm : undefined],
    ['spec.thanos', spec.thanos],
    ['spec.prometheus.ingress', spec.prometheus?.ingress],
    ['spec.grafana.ingress', spec.grafana?.ingress],
    ['spec.additionalContainers', spec.additionalContainers !== undefined && spec.additionalContainers.length > 0 ? spec.additionalContainers : undefined],
  ];
  for (const [field, value] of unsupported) {
    if (value !== undefined && value !== null) problems.push({ field, message: 'not supported by this reconciler (TiDB Operator v1 deploys it; here it would be silently missing)' });
  }
  return problems;
}

function serviceProblems(service: MonitorServiceSpec | undefined, path: string): MonitorProblem[] {
  const ranges = service?.loadBalancerSourceRanges ?? [];
  const bad = ranges.filter((r) => !isCidr(r));
  if (bad.length === 0) return [];
  return [{ field: `${path}.loadBalancerSourceRanges`, message: `${JSON.stringify(bad)} is not valid. Expecting a list of IP ranges. For example, 10.0.0.0/24.` }];
}

/** Whether `value` parses as Prometheus's `model.ParseDuration` does (`0` alone is allowed). */
export function isPromDuration(value: string): boolean {
  if (value === '0') return true;
  return value !== '' && PROM_DURATION.test(value);
}

function isCidr(value: string): boolean {
  const v4 = CIDR_V4.exec(value.trim());
  if (v4) return v4.slice(1, 5).every((o) => Number(o) <= 255) && Number(v4[5]) <= 32;
  const v6 = CIDR_V6.exec(value.trim());
  return v6 !== null && Number(v6[1]) <= 128 && value.includes(':');
}
