import { describe, expect, it } from '@jest/globals';

import { pdStartScript } from '../../../../lib/reconcile/components/pd/start-script.js';
import { tidbStartScript } from '../../../../lib/reconcile/components/tidb/start-script.js';
import { tikvStartScript } from '../../../../lib/reconcile/components/tikv/start-script.js';
import { clusterDomainSuffix, scriptedConfigMounts, scriptedConfigVolumes, startScriptCommand, startScriptOpening } from '../../../../lib/reconcile/member/start-script.js';

const pd = pdStartScript({ dataDir: '/var/lib/pd', startTimeoutSeconds: 30, scheme: 'http', clusterDomain: '' });
const tikv = tikvStartScript({ dataDir: '/var/lib/tikv', pdAddress: 'http://${CLUSTER_NAME}-pd:2379', clusterDomain: '', preferIPv6: false, advertiseStatusAddr: false });
const tidb = tidbStartScript({ pdPath: 'basic-pd:2379', clusterDomain: '' });

describe('the opening v1 start scripts share', () => {
  it.each([
    { name: 'PD: blank lines, debug block indented by spaces', script: pd, component: 'pd', sourceThen: '2>/dev/null\n\nrunmode=', debugLine: '\n    echo "entering debug mode."\n' },
    { name: 'TiKV: blank lines, debug block indented by a tab', script: tikv, component: 'tikv', sourceThen: '2>/dev/null\n\nrunmode=', debugLine: '\n\techo "entering debug mode."\n' },
    { name: 'TiDB: no blank lines, debug block indented by spaces', script: tidb, component: 'tidb', sourceThen: '2>/dev/null\nrunmode=', debugLine: '\n    echo "entering debug mode."\n' },
  ])('$name', ({ script, component, sourceThen, debugLine }) => {
    // Prepare: the part of the script before the component's own arguments.
    const opening = script.slice(0, script.indexOf('POD_NAME=${POD_NAME:-$HOSTNAME}\n') + 'POD_NAME=${POD_NAME:-$HOSTNAME}\n'.length);

    // Act
    const layouts = [
      startScriptOpening(component, { blankLines: true, debugIndent: '    ' }),
      startScriptOpening(component, { blankLines: true, debugIndent: '\t' }),
      startScriptOpening(component, { blankLines: false, debugIndent: '    ' }),
    ];

    // Assess: exactly one layout is the component's, and it says what the upstream template says.
    expect(layouts.filter((l) => l === opening)).toHaveLength(1);
    expect(opening.startsWith(`#!/bin/sh\n\n# This script is used to start ${component} containers in kubernetes cluster\n`)).toBe(true);
    expect(opening).toContain(sourceThen);
    expect(opening).toContain(debugLine);
    expect(opening.indexOf('source ${ANNOTATIONS}')).toBeLessThan(opening.indexOf('runmode=${runmode:-normal}'));
  });

  it.each([
    { name: 'no cluster domain: nothing after .svc', clusterDomain: '', suffix: '' },
    { name: 'a cluster domain follows .svc', clusterDomain: 'cluster.local', suffix: '.cluster.local' },
  ])('the DNS suffix: $name', ({ clusterDomain, suffix }) => {
    expect(clusterDomainSuffix(clusterDomain)).toBe(suffix);
  });

  it('the script and the TOML file come from the ConfigMap: <c>.toml under /etc/<c>, <c>_start_script.sh under /usr/local/bin, which the command runs', () => {
    // Act
    const volumes = scriptedConfigVolumes('tikv', 'basic-tikv-3961');
    const mounts = scriptedConfigMounts('tikv');
    const command = startScriptCommand('tikv');

    // Assess
    expect(volumes).toEqual([
      { name: 'config', configMap: { name: 'basic-tikv-3961', items: [{ key: 'config-file', path: 'tikv.toml' }] } },
      { name: 'startup-script', configMap: { name: 'basic-tikv-3961', items: [{ key: 'startup-script', path: 'tikv_start_script.sh' }] } },
    ]);
    expect(mounts).toEqual([
      { name: 'config', readOnly: true, mountPath: '/etc/tikv' },
      { name: 'startup-script', readOnly: true, mountPath: '/usr/local/bin' },
    ]);
    expect(command).toEqual(['/bin/sh', '/usr/local/bin/tikv_start_script.sh']);
  });
});
