import { describe, it, expect } from '@jest/globals';
import { ADMIN_COMPONENTS, parseAdminRequest } from '../../../lib/platform/admin-request.js';

const cluster = { namespace: 'tidb', name: 'basic' };

describe('parseAdminRequest', () => {
  it.each([
    { name: 'reconcile needs only the cluster', input: { action: 'reconcile', cluster } },
    { name: 'pause needs only the cluster', input: { action: 'pause', cluster } },
    { name: 'resume needs only the cluster', input: { action: 'resume', cluster } },
    { name: 'status needs only the cluster', input: { action: 'status', cluster } },
    { name: 'history needs only the cluster', input: { action: 'history', cluster } },
    { name: 'a cluster name may contain dots', input: { action: 'status', cluster: { namespace: 'db', name: 'basic.v8' } } },
  ])('$name', ({ input }) => {
    // Act
    const result = parseAdminRequest(input);

    // Assess
    expect(result).toEqual({ ok: true, request: input });
  });

  it.each(ADMIN_COMPONENTS.map((component) => ({ name: `force-upgrade accepts component ${component}`, component })))(
    '$name',
    ({ component }) => {
      // Prepare
      const input = { action: 'force-upgrade', cluster, component };

      // Act
      const result = parseAdminRequest(input);

      // Assess
      expect(result).toEqual({ ok: true, request: input });
    },
  );

  it.each([
    { name: 'a request must be an object', input: 'pause', field: 'request', says: 'got a string' },
    { name: 'null is not a request', input: null, field: 'request', says: 'got null' },
    { name: 'a request without an action names the action', input: { cluster }, field: 'action', says: 'action is missing' },
    { name: 'an unknown action lists the known ones', input: { action: 'delete', cluster }, field: 'action', says: 'reconcile, force-upgrade, pause' },
    { name: 'an action must be a string', input: { action: 1, cluster }, field: 'action', says: 'got a number' },
    { name: 'a request without a cluster names the cluster', input: { action: 'pause' }, field: 'cluster', says: 'cluster is missing' },
    { name: 'a cluster given as a key string is rejected', input: { action: 'pause', cluster: 'tidb/basic' }, field: 'cluster', says: '{namespace, name}' },
    { name: 'a cluster without a namespace names it', input: { action: 'pause', cluster: { name: 'basic' } }, field: 'cluster.namespace', says: 'is missing' },
    { name: 'a cluster without a name names it', input: { action: 'pause', cluster: { namespace: 'tidb' } }, field: 'cluster.name', says: 'is missing' },
    { name: 'a namespace that is not a DNS label is rejected', input: { action: 'pause', cluster: { namespace: 'Tidb', name: 'basic' } }, field: 'cluster.namespace', says: '"Tidb"' },
    { name: 'a name must be a string', input: { action: 'pause', cluster: { namespace: 'tidb', name: 7 } }, field: 'cluster.name', says: 'got a number' },
    { name: 'a misspelt cluster field is rejected', input: { action: 'pause', cluster: { namespace: 'tidb', nmae: 'basic' } }, field: 'cluster.nmae', says: 'not a field of cluster' },
    { name: 'force-upgrade without a component names the component', input: { action: 'force-upgrade', cluster }, field: 'component', says: 'component is missing' },
    { name: 'force-upgrade of an unknown component lists the known ones', input: { action: 'force-upgrade', cluster, component: 'tiproxy' }, field: 'component', says: 'pd, tikv, tiflash, tidb, ticdc, pump' },
    { name: 'a component on an action that takes none is rejected', input: { action: 'pause', cluster, component: 'pd' }, field: 'component', says: 'not a field of the pause action' },
    { name: 'a misspelt top-level field is rejected', input: { action: 'force-upgrade', cluster, componnet: 'pd' }, field: 'componnet', says: 'not a field of the force-upgrade action' },
  ])('$name', ({ input, field, says }) => {
    // Act
    const result = parseAdminRequest(input);

    // Assess
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.field).toBe(field);
    expect(result.error.message).toContain(says);
  });
});
