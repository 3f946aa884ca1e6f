/**
 * The TidbNGMonitoring recipe against v1's manager (release-1.6 `pkg/manager/tidbngmonitoring`): its
 * objects and their order, the start script, the digest-named ConfigMap, TLS, paused, idempotence,
 * status, and refusals that name their field.
 */
import { describe, expect, it } from '@jest/globals';
import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IService } from 'kubernetes-models/v1/Service';

import { planTidbNgMonitoring } from '../../../../lib/reconcile/tidb-ng-monitoring/recipe.js';
import { cluster, events, liveSts, ngmSnap, ngMonitoring, writes, written } from './fixtures.js';

/** The first step's plan and what it wrote, as the next step would read it. */
function afterFirstStep(tngm = ngMonitoring()) {
  const plan = planTidbNgMonitoring(ngmSnap(tngm));
  const cm = plan.actions.find((a) => a.kind === 'create' && a.ref.kind === 'ConfigMap');
  const cmName = cm !== undefined && 'ref' in cm ? cm.ref.name : '';
  return {
    plan,
    cmName,
    service: written<IService>(plan, 'Service', 'basic-ng-monitoring'),
    configMap: written<IConfigMap>(plan, 'ConfigMap', cmName),
    sts: written<IStatefulSet>(plan, 'StatefulSet', 'basic-ng-monitoring'),
  };
}

describe('TidbNGMonitoring', () => {
  it('a fresh one gets its certificate Secret, headless Service, ConfigMap and StatefulSet, in that order', () => {
    // Act
    const { plan, cmName, sts } = afterFirstStep();

    // Assess
    expect(writes(plan)).toEqual(['secret.copy Secret/basic-tc-client-tls', 'create Service/basic-ng-monitoring', `create ConfigMap/${cmName}`, 'create StatefulSet/basic-ng-monitoring']);
    expect(cmName).toMatch(/^basic-ng-monitoring-[0-9a-f]{7}$/);
    const container = sts.spec?.template.spec?.containers[0];
    expect(container?.image).toBe('pingcap/ng-monitoring:nightly');
    expect(container?.command?.[2]).toBe(
      '/ng-monitoring-server \\\n\t--pd.endpoints basic-pd.demo:2379 \\\n\t--advertise-address ${POD_NAME}.basic-ng-monitoring.demo:12020 \\\n\t--config /etc/ng-monitoring/ng-monitoring.toml \\\n\t--storage.path /var/lib/ng-monitoring\n',
    );
    expect(sts.spec?.template.spec?.volumes?.[0]).toEqual({ name: 'config', configMap: { name: cmName, items: [{ key: 'config-file', path: 'ng-monitoring.toml' }] } });
    expect(sts.spec?.serviceName).toBe('basic-ng-monitoring');
  });

  it('the empty certificate Secret is made once; a second step writes only status and completes when ready', () => {
    // Arrange
    const first = afterFirstStep();
    const sts = liveSts(first.sts, { ready: true });

    // Act
    const plan = planTidbNgMonitoring(ngmSnap(ngMonitoring(), { service: first.service, configMaps: [first.configMap], sts, secrets: { 'basic-tc-client-tls': true } }));

    // Assess
    expect(writes(plan)).toEqual(['updateStatus TidbNGMonitoring/basic']);
    expect(written<{ status: unknown }>(plan, 'TidbNGMonitoring', 'basic').status).toEqual({ ngMonitoring: { synced: true, phase: 'Normal', statefulSet: sts.status } });
    expect(plan.outcome.kind).toBe('complete');
  });

  it('a changed config makes a new ConfigMap and rolls the StatefulSet onto it', () => {
    // Arrange
    const first = afterFirstStep();
    const changed = ngMonitoring({ ngMonitoring: { requests: { storage: '10Gi' }, version: 'nightly', baseImage: 'pingcap/ng-monitoring', config: '[log]\nlevel = "DEBUG"\n' } });

    // Act
    const plan = planTidbNgMonitoring(ngmSnap(changed, { service: first.service, configMaps: [first.configMap], sts: liveSts(first.sts, { ready: true }), secrets: { 'basic-tc-client-tls': true } }));

    // Assess
    const created = plan.actions.find((a) => a.kind === 'create' && a.ref.kind === 'ConfigMap');
    const newName = created !== undefined && 'ref' in created ? created.ref.name : '';
    expect(newName).not.toBe(first.cmName);
    expect(written<IConfigMap>(plan, 'ConfigMap', newName).data).toEqual({ 'config-file': '[log]\nlevel = "DEBUG"\n' });
    expect(written<IStatefulSet>(plan, 'StatefulSet', 'basic-ng-monitoring').spec?.template.spec?.volumes?.[0]?.configMap?.name).toBe(newName);
  });

  it('under cluster TLS the certificates are copied with their cluster-qualified keys and the config names them', () => {
    // Act
    const plan = planTidbNgMonitoring(ngmSnap(ngMonitoring(), { tc: cluster({ tls: true }), secrets: { 'basic-cluster-client-secret': true } }));

    // Assess
    expect(plan.actions[0]).toMatchObject({ kind: 'secret.copy', ref: { name: 'basic-tc-client-tls' }, sources: [{ namespace: 'demo', name: 'basic-cluster-client-secret', keyPrefix: 'basic_demo_' }] });
    const cm = plan.actions.find((a) => a.kind === 'create' && a.ref.kind === 'ConfigMap');
    const config = String((cm !== undefined && 'object' in cm ? (cm.object as IConfigMap).data?.['config-file'] : '') ?? '');
    expect(config).toContain('ca-path = "/var/lib/tc-client-tls/basic_demo_ca.crt"');
    expect(written<IStatefulSet>(plan, 'StatefulSet', 'basic-ng-monitoring').spec?.template.spec?.volumes?.[1]).toEqual({ name: 'tc-client-tls', secret: { secretName: 'basic-tc-client-tls' } });
  });

  it('paused: status is still reported, nothing else is written', () => {
    // Arrange
    const first = afterFirstStep();
    const sts = liveSts(first.sts, { ready: false });

    // Act
    const plan = planTidbNgMonitoring(ngmSnap(ngMonitoring({ paused: true }), { sts, secrets: { 'basic-tc-client-tls': true } }));

    // Assess
    expect(writes(plan)).toEqual(['updateStatus TidbNGMonitoring/basic']);
    expect(plan.outcome.kind).toBe('complete');
  });

  it.each([
    { name: 'no cluster', spec: { clusters: [] }, message: 'spec.clusters: Invalid value: 0: must have at least one item' },
    { name: 'no storage request', spec: { ngMonitoring: { baseImage: 'pingcap/ng-monitoring' } }, message: 'spec.ngMonitoring.requests.storage: Required value: a TidbNGMonitoring needs a storage request for its data volume' },
    { name: 'config that is not TOML', spec: { ngMonitoring: { baseImage: 'pingcap/ng-monitoring', requests: { storage: '1Gi' }, config: '[log\nlevel' } }, message: 'spec.ngMonitoring.config: Invalid value: not a TOML document (ng-monitoring-server would exit reading it)' },
    { name: 'a storage volume without a name', spec: { ngMonitoring: { baseImage: 'pingcap/ng-monitoring', requests: { storage: '1Gi' }, storageVolumes: [{ storageSize: '1Gi' }] } }, message: 'spec.ngMonitoring.storageVolumes[0].name: Required value: name must not be empty' },
  ])('refused: $name', ({ spec, message }) => {
    // Act
    const plan = planTidbNgMonitoring(ngmSnap(ngMonitoring(spec)));

    // Assess
    expect(writes(plan)).toEqual([]);
    expect(events(plan)).toEqual([`Warning FailedValidation: ${message}`]);
    expect(plan.outcome).toMatchObject({ kind: 'fail', terminal: true });
  });
});
