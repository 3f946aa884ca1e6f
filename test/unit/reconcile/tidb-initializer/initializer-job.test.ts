/**
 * The initializer's ConfigMap and Job as v1's `getTiDBInitConfigMap` / `makeTiDBInitJob` build them
 * (release-1.6 `tidb_init_manager.go`), and the start script's re-runnable login.
 */
import { describe, expect, it } from '@jest/globals';
import type { KubeObject } from '../../../../lib/model/kube.js';
import { buildInitConfigMap, buildInitJob } from '../../../../lib/reconcile/tidb-initializer/job.js';
import { initStartScript, startScript } from '../../../../lib/reconcile/tidb-initializer/scripts.js';
import { withSpec } from '../../../support/fixtures.js';
import { cluster, initializer } from './fixtures.js';

/** The Job's spec as the tests read it. */
type JobSpec = { backoffLimit: number; template: { metadata: { labels: unknown }; spec: unknown } };
const specOf = (job: KubeObject): JobSpec => job['spec'] as JobSpec;

type Container = { name: string; image: string; command: string[]; env?: unknown[]; imagePullPolicy?: string; volumeMounts: { name: string; mountPath: string; subPath?: string; readOnly?: boolean }[] };

describe('the initializer Job', () => {
  const job = buildInitJob(initializer({ timezone: 'Asia/Shanghai' }), cluster());
  const pod = specOf(job).template.spec as { initContainers: Container[]; containers: Container[]; volumes: Record<string, unknown>[]; restartPolicy: string; automountServiceAccountToken: boolean };

  it("is v1's: named <cluster>-tidb-initializer, labelled and owned, backoffLimit 0, restartPolicy Never, no service account token", () => {
    expect(job.metadata).toEqual({
      name: 'basic-tidb-initializer',
      namespace: 'demo',
      labels: { 'app.kubernetes.io/component': 'initializer', 'app.kubernetes.io/managed-by': 'tidb-operator', 'app.kubernetes.io/instance': 'ti', 'tidb.pingcap.com/initializer': 'ti' },
      annotations: {},
      ownerReferences: [{ apiVersion: 'pingcap.com/v1alpha1', kind: 'TidbInitializer', name: 'ti', uid: 'uid-ti', controller: true, blockOwnerDeletion: true }],
    });
    expect(specOf(job).backoffLimit).toBe(0);
    expect(specOf(job).template.metadata.labels).toEqual(job.metadata.labels);
    expect(pod.restartPolicy).toBe('Never');
    expect(pod.automountServiceAccountToken).toBe(false);
  });

  it('runs the wait script in init container `wait` and the python script in `mysql-client`, both of spec.image with TZ', () => {
    expect(pod.initContainers.map((c) => [c.name, c.image, c.command.join(' '), c.imagePullPolicy])).toEqual([['wait', 'tnir/mysqlclient', 'sh /usr/local/bin/init_start_script.sh', 'IfNotPresent']]);
    expect(pod.containers.map((c) => [c.name, c.image, c.command.join(' '), c.imagePullPolicy])).toEqual([['mysql-client', 'tnir/mysqlclient', 'python /usr/local/bin/start_script.py', 'IfNotPresent']]);
    expect(pod.containers[0]?.env).toEqual([{ name: 'TZ', value: 'Asia/Shanghai' }]);
  });

  it('mounts the script, the password Secret at /etc/tidb/password and the inline SQL at /data', () => {
    expect(pod.containers[0]?.volumeMounts).toEqual([
      { name: 'start-script', readOnly: true, mountPath: '/usr/local/bin/start_script.py', subPath: 'start_script.py' },
      { name: 'password', readOnly: true, mountPath: '/etc/tidb/password' },
      { name: 'init-sql', readOnly: true, mountPath: '/data' },
    ]);
    expect(pod.volumes).toEqual([
      { name: 'start-script', configMap: { name: 'basic-tidb-initializer', items: [{ key: 'start-script', path: 'start_script.py' }] } },
      { name: 'init-start-script', configMap: { name: 'basic-tidb-initializer', items: [{ key: 'init-start-script', path: 'init_start_script.sh' }] } },
      { name: 'password', secret: { secretName: 'tidb-secret' } },
      { name: 'init-sql', configMap: { name: 'basic-tidb-initializer', items: [{ key: 'init-sql', path: 'init.sql' }] } },
    ]);
  });

  it('initSqlConfigMap wins over initSql', () => {
    const spec = specOf(buildInitJob(initializer({ initSqlConfigMap: 'my-sql' }), cluster())).template.spec as { volumes: { name: string; configMap?: { name: string } }[] };
    expect(spec.volumes.find((v) => v.name === 'init-sql')?.configMap?.name).toBe('my-sql');
  });

  it.each([
    { name: 'TiDB client TLS on', tc: cluster(withSpec({ tidb: { baseImage: 'pingcap/tidb', replicas: 1, tlsClient: { enabled: true } } })), ti: {}, secret: 'basic-tidb-client-secret' },
    { name: 'its own tlsClientSecretName', tc: cluster(withSpec({ tidb: { baseImage: 'pingcap/tidb', replicas: 1, tlsClient: { enabled: true } } })), ti: { tlsClientSecretName: 'mine' }, secret: 'mine' },
    { name: 'no TLS', tc: cluster(), ti: {}, secret: undefined },
  ])('$name: the client certificate volume', ({ tc, ti, secret }) => {
    const spec = specOf(buildInitJob(initializer(ti), tc)).template.spec as { volumes: { name: string; secret?: { secretName: string } }[] };
    expect(spec.volumes.find((v) => v.name === 'tidb-client-tls')?.secret?.secretName).toBe(secret);
  });
});

describe('the initializer ConfigMap', () => {
  it('holds both scripts for the TiDB service port and the inline SQL', () => {
    const cm = buildInitConfigMap(initializer(), cluster(withSpec({ tidb: { baseImage: 'pingcap/tidb', replicas: 1, service: { type: 'ClusterIP', port: 3306 } } })));
    const data = cm['data'] as Record<string, string>;
    expect(Object.keys(data).sort()).toEqual(['init-sql', 'init-start-script', 'start-script']);
    expect(data['init-sql']).toBe('create database hello;');
    expect(data['init-start-script']).toBe(initStartScript('basic', 3306));
    expect(data['init-start-script']).toContain('nc -zv -w 3 $host $port');
    expect(data['start-script']).toContain("host = 'basic-tidb'\npermit_host = '%'\nport = 3306\n");
  });

  it.each([
    { name: 'with a password Secret: the empty root password, then the Secret\'s', passwordSet: true, fragments: ["passwords.append(lines[0])", "user='root', passwd=password", 'create user if not exists %s@%s', 'alter user %s@%s'] },
    { name: 'without: the empty root password only, no password files read', passwordSet: false, fragments: ["user='root', passwd=password"], absent: ['os.listdir(password_dir)', 'passwords.append'] },
  ])('start script $name', ({ passwordSet, fragments, absent }) => {
    const text = startScript({ clusterName: 'basic', permitHost: '%', passwordSet, initSql: false, tidbServicePort: 4000 });
    for (const f of fragments) expect(text).toContain(f);
    for (const f of absent ?? []) expect(text).not.toContain(f);
    expect(text).not.toContain("open('/data/init.sql'");
  });
});
