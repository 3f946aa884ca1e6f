/**
 * The credentials a backup-manager pod's AWS SDK chain resolves (lib/sim/backup/storage.ts): env
 * keys, then the IRSA role, then an EKS Pod Identity association's role, else none.
 */
import { describe, expect, it } from '@jest/globals';
import { VirtualClock } from '../../lib/platform/clock.js';
import { PodIdentityAssociations, PodIdentityConflictError } from '../../lib/sim/backup/pod-identity.js';
import { StorageSetupError, podCredentials } from '../../lib/sim/backup/storage.js';
import type { KubeObject } from '../../lib/sim/object.js';
import { ObjectStore } from '../../lib/sim/store.js';

const IRSA = 'arn:aws:iam::123456789012:role/irsa';
const POD_ID = 'arn:aws:iam::123456789012:role/pod-identity';

type Case = { name: string; keys?: boolean; irsa?: string; association?: { namespace: string; serviceAccount: string }; expected: unknown };

function setup(c: Case): { store: ObjectStore; pod: KubeObject; podIdentity: PodIdentityAssociations } {
  const store = new ObjectStore(new VirtualClock(Date.UTC(2026, 0, 1)));
  store.create('Namespace', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'demo' } });
  store.create('ServiceAccount', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'tidb-backup-manager', namespace: 'demo', ...(c.irsa ? { annotations: { 'eks.amazonaws.com/role-arn': c.irsa } } : {}) } });
  const env = c.keys ? [{ name: 'AWS_ACCESS_KEY_ID', value: 'AKIAEXAMPLE' }, { name: 'AWS_SECRET_ACCESS_KEY', value: 'example' }] : [];
  const pod: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'backup-b1-abcde', namespace: 'demo' }, spec: { serviceAccountName: 'tidb-backup-manager', containers: [{ name: 'backup', env }] } };
  const podIdentity = new PodIdentityAssociations();
  if (c.association) podIdentity.add({ ...c.association, roleArn: POD_ID });
  return { store, pod, podIdentity };
}

const MATCH = { namespace: 'demo', serviceAccount: 'tidb-backup-manager' };

describe('podCredentials', () => {
  it.each<Case>([
    { name: 'env keys win over IRSA and Pod Identity', keys: true, irsa: IRSA, association: MATCH, expected: { kind: 'keys', accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'example' } },
    { name: 'IRSA wins over Pod Identity', irsa: IRSA, association: MATCH, expected: { kind: 'role', roleArn: IRSA } },
    { name: 'a matching association gives its role', association: MATCH, expected: { kind: 'role', roleArn: POD_ID } },
    { name: 'an association in another namespace gives nothing', association: { namespace: 'other', serviceAccount: 'tidb-backup-manager' }, expected: 'NoCredentialProviders' },
    { name: 'an association for another service account gives nothing', association: { namespace: 'demo', serviceAccount: 'default' }, expected: 'NoCredentialProviders' },
    { name: 'no source gives nothing', expected: 'NoCredentialProviders' },
    { name: 'an unknown IRSA role is not assumed, an association notwithstanding', irsa: 'arn:aws:iam::123456789012:role/unknown', association: MATCH, expected: 'WebIdentityErr' },
  ])('$name', (c) => {
    // Arrange
    const { store, pod, podIdentity } = setup(c);
    const resolve = (): unknown => podCredentials(store, pod, 'backup', new Set([IRSA]), podIdentity);

    // Act / Assert
    if (typeof c.expected === 'string') {
      expect(resolve).toThrow(StorageSetupError);
      expect(resolve).toThrow(c.expected);
    } else expect(resolve()).toEqual(c.expected);
  });

  it('refuses a second association for the same namespace and service account', () => {
    // Arrange
    const associations = new PodIdentityAssociations();
    associations.add({ ...MATCH, roleArn: POD_ID });

    // Act / Assert
    expect(() => associations.add({ ...MATCH, roleArn: IRSA })).toThrow(PodIdentityConflictError);
    expect(associations.roleFor('demo', 'tidb-backup-manager')).toBe(POD_ID);
  });
});
