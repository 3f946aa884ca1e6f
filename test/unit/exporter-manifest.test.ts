import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { parseAllDocuments } from 'yaml';

type Doc = { kind: string; metadata: { name: string; namespace?: string; annotations?: Record<string, string> }; [key: string]: unknown };

const docs = parseAllDocuments(readFileSync(new URL('../../infra/k8s/exporter.yaml', import.meta.url), 'utf8')).map((d) => d.toJS() as Doc);
const byKind = (kind: string): Doc => {
  const doc = docs.find((d) => d.kind === kind);
  if (!doc) throw new Error(`no ${kind} in exporter.yaml`);
  return doc;
};

describe('the exporter manifest', () => {
  it('holds exactly a Namespace, ServiceAccount, ClusterRole, ClusterRoleBinding and Deployment', () => {
    expect(docs.map((d) => d.kind)).toEqual(['Namespace', 'ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Deployment']);
  });

  it('the ClusterRole grants list/watch on the watched resources and nothing else', () => {
    const rules = byKind('ClusterRole')['rules'] as { apiGroups: string[]; resources: string[]; verbs: string[] }[];
    const grants = rules.flatMap((r) => r.apiGroups.flatMap((g) => r.resources.map((res) => `${res}.${g}: ${[...r.verbs].sort().join(',')}`))).sort();
    expect(grants).toEqual([
      'backups.pingcap.com: list,watch',
      'backupschedules.pingcap.com: list,watch',
      'compactbackups.pingcap.com: list,watch',
      'deployments.apps: list,watch',
      'jobs.batch: list,watch',
      'persistentvolumeclaims.: list,watch',
      'pods.: list,watch',
      'restores.pingcap.com: list,watch',
      'statefulsets.apps: list,watch',
      'tidbclusters.pingcap.com: list,watch',
      'tidbdashboards.pingcap.com: list,watch',
      'tidbinitializers.pingcap.com: list,watch',
      'tidbmonitors.pingcap.com: list,watch',
      'tidbngmonitorings.pingcap.com: list,watch',
    ]);
  });

  it('the binding gives that role to the service account the one-replica Deployment runs as', () => {
    const binding = byKind('ClusterRoleBinding') as Doc & { roleRef: { name: string }; subjects: { kind: string; name: string; namespace: string }[] };
    const sa = byKind('ServiceAccount');
    const deployment = byKind('Deployment') as Doc & { spec: { replicas: number; template: { spec: { serviceAccountName: string; containers: { command: string[] }[] } } } };
    expect(binding.roleRef.name).toBe(byKind('ClusterRole').metadata.name);
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: sa.metadata.name, namespace: sa.metadata.namespace }]);
    expect(sa.metadata.annotations?.['eks.amazonaws.com/role-arn']).toMatch(/^arn:aws:iam::/);
    expect(deployment.spec.replicas).toBe(1);
    expect(deployment.spec.template.spec.serviceAccountName).toBe(sa.metadata.name);
    expect(deployment.spec.template.spec.containers[0]?.command).toEqual(['node', 'exporter.mjs']);
  });
});
