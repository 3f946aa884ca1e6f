import { describe, expect, it } from '@jest/globals';
import { EXAMPLE_MANIFEST, parseStartArgs } from '../../lib/cli/start.js';
import { Activity, clusterViewOf, isEveryViewReady, renderViews } from '../../lib/local/progress-view.js';
import { silentLogger } from '../../lib/platform/logger.js';

describe('start: what gets applied', () => {
  it.each([
    { name: 'the simulated world gets the example', args: [], apply: EXAMPLE_MANIFEST },
    { name: 'the simulated world gets --apply instead', args: ['--apply', 'my.yaml'], apply: 'my.yaml' },
    { name: 'a cluster of a kubeconfig gets nothing by default', args: ['--kubeconfig', 'k'], apply: undefined },
    { name: 'a cluster of a kubeconfig gets only what --apply names', args: ['--kubeconfig', 'k', '--apply', 'my.yaml'], apply: 'my.yaml' },
  ])('$name', ({ args, apply }) => {
    // Act
    const opts = parseStartArgs(args);
    // Assess
    expect(opts.apply).toBe(apply);
  });

  it.each([
    { name: 'without --kubeconfig', args: ['--dry-run'], error: '--dry-run needs --kubeconfig' },
    { name: 'with --apply', args: ['--dry-run', '--kubeconfig', 'k', '--apply', 'x.yaml'], error: '--dry-run writes nothing, so it cannot --apply' },
  ])('--dry-run is refused $name', ({ args, error }) => {
    expect(() => parseStartArgs(args)).toThrow(error);
  });

  it('--dry-run with --kubeconfig plans and applies nothing', () => {
    expect(parseStartArgs(['--kubeconfig', 'k', '--dry-run'])).toEqual(expect.objectContaining({ dryRun: true, apply: undefined }));
  });

  it.each([
    { name: 'without --kubeconfig (the world start runs is its own VPC)', args: ['--vpc-proxy', 'http://127.0.0.1:1'], error: '--vpc-proxy needs --kubeconfig' },
    { name: 'with --dry-run', args: ['--kubeconfig', 'k', '--dry-run', '--vpc-proxy', 'http://127.0.0.1:1'], error: '--dry-run plans from outside the VPC' },
    { name: 'that is not an http proxy URL', args: ['--kubeconfig', 'k', '--vpc-proxy', 'https://127.0.0.1:1'], error: '--vpc-proxy: "https://127.0.0.1:1" must be http://<host>:<port>' },
  ])('--vpc-proxy is refused $name', ({ args, error }) => {
    expect(() => parseStartArgs(args)).toThrow(error);
  });

  it('--vpc-proxy with --kubeconfig places the functions in that VPC; without it they are outside', () => {
    expect(parseStartArgs(['--kubeconfig', 'k', '--vpc-proxy', 'http://127.0.0.1:4321']).vpcProxy?.origin).toBe('http://127.0.0.1:4321');
    expect(parseStartArgs(['--kubeconfig', 'k']).vpcProxy).toBeUndefined();
  });

  it('the old --example option is gone (an unknown option)', () => {
    expect(() => parseStartArgs(['--example', 'x.yaml'])).toThrow("Unknown option '--example'");
  });
});

const tc = (namespace: string, name: string, ready: string) => ({
  metadata: { namespace, name },
  spec: { pd: { replicas: 3 } },
  status: { pd: { phase: 'Normal', statefulSet: { readyReplicas: 3 } }, conditions: [{ type: 'Ready', status: ready }] },
});

describe('start: the live view lists every TidbCluster', () => {
  it.each([
    { name: 'no cluster is not "all Ready"', clusters: [], ready: false },
    { name: 'one Ready', clusters: [tc('a', 'x', 'True')], ready: true },
    { name: 'one of two not Ready', clusters: [tc('a', 'x', 'True'), tc('b', 'y', 'False')], ready: false },
    { name: 'both Ready', clusters: [tc('a', 'x', 'True'), tc('b', 'y', 'True')], ready: true },
  ])('$name', ({ clusters, ready }) => {
    // Prepare
    const views = clusters.map((c) => clusterViewOf(`${c.metadata.namespace}/${c.metadata.name}`, c));
    // Act
    const lines = renderViews(views, new Activity(silentLogger), 12_000);
    // Assess
    expect(isEveryViewReady(views)).toBe(ready);
    expect(lines[0]).toMatch(new RegExp(`^12s\\s+${clusters.length} TidbClusters?\\s+steps: 0$`));
    for (const c of clusters) expect(lines).toContain(`  ${c.metadata.namespace}/${c.metadata.name}`);
    expect(lines.filter((l) => /^\s+pd\s+3\s+3\s+Normal$/.test(l))).toHaveLength(clusters.length);
    if (clusters.length === 0) expect(lines).toContain('  (no TidbCluster yet)');
  });
});

describe('start: PD microservices in the live view', () => {
  it.each([
    { name: 'each service of spec.pdms right after PD, from status.pdms', pdms: [{ name: 'tso', replicas: 2 }, { name: 'scheduling', replicas: 1 }], want: ['pd', 'tso', 'scheduling', 'tikv'] },
    { name: 'none without spec.pdms', pdms: undefined, want: ['pd', 'tikv'] },
  ])('$name', ({ pdms, want }) => {
    // Prepare
    const cluster = {
      metadata: { namespace: 'a', name: 'x' },
      spec: { pd: { replicas: 1 }, tikv: { replicas: 1 }, ...(pdms === undefined ? {} : { pdms }) },
      status: { pdms: { tso: { phase: 'Upgrade', statefulSet: { readyReplicas: 1 } } } },
    };
    // Act
    const view = clusterViewOf('a/x', cluster);
    // Assess
    expect(view.components.map((c) => c.name)).toEqual(want);
    if (pdms !== undefined) expect(view.components[1]).toEqual({ name: 'tso', desired: 2, ready: 1, phase: 'Upgrade' });
  });
});
