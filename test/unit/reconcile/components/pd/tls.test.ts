import { describe, expect, it } from '@jest/globals';
import { parse as parseToml } from 'smol-toml';

import type { TidbCluster } from '../../../../../lib/model/kube.js';
import { pdConfigData } from '../../../../../lib/reconcile/components/pd/config-map.js';
import { desiredPdStatefulSet, planPdClientRefused, planPdTlsSecret } from '../../../../support/pd-rules.js';
import { planReadyCondition } from '../../../../../lib/reconcile/cluster/cluster-status.js';
import { CLIENT_REFUSED_RECHECK_MS, CLUSTER_CLIENT_SECRET_MISSING, MISSING_SECRET_RECHECK_MS, PD_REFUSES_CLIENT_REASON } from '../../../../../lib/reconcile/components/pd/tls.js';
import { changeSpec, ruleInputOf, snapshot, tidbCluster, withCluster, type Change } from '../../../../support/fixtures.js';

const tls = (enabled: boolean, pd: Partial<NonNullable<TidbCluster['spec']['pd']>> = {}): Change<TidbCluster> =>
  changeSpec((spec) => ({ ...spec, tlsCluster: { enabled }, pd: { replicas: 3, ...spec.pd, ...pd } }));

const podSpecOf = (tc: TidbCluster) => desiredPdStatefulSet(ruleInputOf(snapshot(withCluster(tc))), { replicas: 3, partition: 3 }).spec?.template.spec;

describe('PD with cluster TLS: volumes, mounts, config and start script as TiDB Operator v1', () => {
  it.each<{ name: string; tc: TidbCluster; mounts: string[]; secrets: string[] }>([
    { name: 'TLS off: no Secret volume', tc: tidbCluster(tls(false)), mounts: [], secrets: [] },
    {
      name: 'TLS on: pd-tls from <tc>-pd-cluster-secret at /var/lib/pd-tls',
      tc: tidbCluster(tls(true)),
      mounts: ['pd-tls:/var/lib/pd-tls:ro'],
      secrets: ['pd-tls=basic-pd-cluster-secret'],
    },
    {
      name: 'TLS on with mountClusterClientSecret: the client Secret at /var/lib/cluster-client-tls too',
      tc: tidbCluster(tls(true, { mountClusterClientSecret: true })),
      mounts: ['pd-tls:/var/lib/pd-tls:ro', 'cluster-client-tls:/var/lib/cluster-client-tls:ro'],
      secrets: ['pd-tls=basic-pd-cluster-secret', 'cluster-client-tls=basic-cluster-client-secret'],
    },
    { name: 'mountClusterClientSecret without TLS mounts nothing', tc: tidbCluster(tls(false, { mountClusterClientSecret: true })), mounts: [], secrets: [] },
  ])('$name', ({ tc, mounts, secrets }) => {
    // Act
    const spec = podSpecOf(tc);
    // Assess
    const pdMounts = (spec?.containers[0]?.volumeMounts ?? []).filter((m) => m.name.includes('tls'));
    expect(pdMounts.map((m) => `${m.name}:${m.mountPath}${m.readOnly === true ? ':ro' : ''}`)).toEqual(mounts);
    const secretVolumes = (spec?.volumes ?? []).filter((v) => v.secret !== undefined);
    expect(secretVolumes.map((v) => `${v.name}=${v.secret?.secretName ?? ''}`)).toEqual(secrets);
  });

  it('TLS mounts come after the data mount and before user mounts (v1 order)', () => {
    const tc = tidbCluster(tls(true, { additionalVolumeMounts: [{ name: 'extra', mountPath: '/extra' }], additionalVolumes: [{ name: 'extra', emptyDir: {} }] }));
    const spec = podSpecOf(tc);
    expect(spec?.containers[0]?.volumeMounts?.map((m) => m.name)).toEqual(['annotations', 'config', 'startup-script', 'pd', 'pd-tls', 'extra']);
    expect(spec?.volumes?.map((v) => v.name)).toEqual(['annotations', 'config', 'startup-script', 'pd-tls', 'extra']);
  });

  it.each<{ name: string; tc: TidbCluster; security: unknown }>([
    { name: 'TLS off: no [security] section', tc: tidbCluster(tls(false)), security: undefined },
    {
      name: 'TLS on: cacert-path, cert-path, key-path under /var/lib/pd-tls',
      tc: tidbCluster(tls(true)),
      security: { 'cacert-path': '/var/lib/pd-tls/ca.crt', 'cert-path': '/var/lib/pd-tls/tls.crt', 'key-path': '/var/lib/pd-tls/tls.key' },
    },
    {
      name: 'TLS on: the injected paths win over the user config, other keys stay',
      tc: tidbCluster(tls(true, { config: { security: { 'cert-path': '/elsewhere', 'cert-allowed-cn': ['pd'] }, schedule: { 'max-store-down-time': '30m' } } })),
      security: { 'cacert-path': '/var/lib/pd-tls/ca.crt', 'cert-path': '/var/lib/pd-tls/tls.crt', 'key-path': '/var/lib/pd-tls/tls.key', 'cert-allowed-cn': ['pd'] },
    },
  ])('config: $name', ({ tc, security }) => {
    const toml = parseToml(pdConfigData(tc)['config-file'] ?? '') as Record<string, unknown>;
    expect(toml['security']).toEqual(security);
  });

  it.each<{ name: string; tc: TidbCluster; scheme: string }>([
    { name: 'TLS off: http URLs', tc: tidbCluster(tls(false)), scheme: 'http' },
    { name: 'TLS on: https URLs', tc: tidbCluster(tls(true)), scheme: 'https' },
  ])('start script: $name', ({ tc, scheme }) => {
    const script = pdConfigData(tc)['startup-script'] ?? '';
    expect(script).toContain(`--peer-urls=${scheme}://0.0.0.0:2380`);
    expect(script).toContain(`--advertise-client-urls=${scheme}://\${domain}:2379`);
    // Discovery itself is plain http in v1, with or without cluster TLS.
    expect(script).toContain('wget -qO- -T 3 http://${discovery_url}/new/');
  });
});

describe('the PdTlsSecret rule: a missing cluster client Secret is reported, not talked around', () => {
  it.each<{ name: string; tc: TidbCluster; missing: string[] | undefined; event: boolean }>([
    { name: 'TLS on, Secret missing: a Warning Event and a recheck', tc: tidbCluster(tls(true)), missing: ['basic-cluster-client-secret'], event: true },
    { name: 'TLS on, Secret present: nothing', tc: tidbCluster(tls(true)), missing: undefined, event: false },
    { name: 'TLS off: nothing, whatever the observer says', tc: tidbCluster(tls(false)), missing: ['basic-cluster-client-secret'], event: false },
    { name: 'TLS on, another Secret missing: nothing', tc: tidbCluster(tls(true)), missing: ['other'], event: false },
  ])('$name', ({ tc, missing, event }) => {
    // Prepare
    const input = ruleInputOf(snapshot(withCluster(tc), (s) => (missing === undefined ? s : { ...s, missingSecrets: missing })));
    // Act
    const decision = planPdTlsSecret(input);
    // Assess
    if (!event) {
      expect(decision.actions).toEqual([]);
      expect(decision.outcome.kind).toBe('complete');
      return;
    }
    expect(decision.actions).toEqual([
      expect.objectContaining({ kind: 'event', type: 'Warning', reason: CLUSTER_CLIENT_SECRET_MISSING, message: expect.stringContaining('demo/basic-cluster-client-secret') }),
    ]);
    expect(decision.outcome).toEqual(expect.objectContaining({ kind: 'retry', afterMs: MISSING_SECRET_RECHECK_MS }));
  });
});

describe('the PdRefusesClient rule: a PD that refuses the reconciler in the TLS handshake is reported, never retried in silence', () => {
  const REFUSAL = 'ClientCertificateRefusedError: PD get members: HTTP 503: error trying to reach service: remote error: tls: certificate required';
  it.each<{ name: string; error?: string; kind?: 'clientRefused' | 'unreachable'; event: boolean }>([
    { name: 'PD refused the client: a Warning Event with the reason and the answer, a recheck in 5 minutes', error: REFUSAL, kind: 'clientRefused', event: true },
    { name: 'PD merely unreachable: nothing (the status says so)', error: 'connection refused', kind: 'unreachable', event: false },
    { name: 'PD read: nothing', event: false },
  ])('$name', ({ error, kind, event }) => {
    // Prepare
    const tc = tidbCluster(tls(true));
    const input = ruleInputOf(snapshot(withCluster(tc), (s) => (error === undefined ? s : { ...s, components: { ...s.components, pd: { ...s.components.pd, view: undefined, error, ...(kind ? { errorKind: kind } : {}) } } })));
    // Act
    const decision = planPdClientRefused(input);
    // Assess
    if (!event) {
      expect(decision.actions).toEqual([]);
      return;
    }
    expect(decision.actions).toEqual([
      expect.objectContaining({ kind: 'event', type: 'Warning', reason: PD_REFUSES_CLIENT_REASON, message: expect.stringMatching(/client certificate signed by the cluster CA.*COMPONENT_ACCESS=direct.*tls: certificate required/) }),
    ]);
    expect(decision.outcome).toEqual(expect.objectContaining({ kind: 'retry', afterMs: CLIENT_REFUSED_RECHECK_MS }));
  });

  it('the Ready condition says why: PDRefusesClient', () => {
    const tc = tidbCluster(tls(true));
    expect(planReadyCondition(tc.spec, {}, 'clientRefused')).toEqual(expect.objectContaining({ status: 'False', reason: 'PDRefusesClient', message: expect.stringContaining('API server proxy does not present') }));
  });
});
