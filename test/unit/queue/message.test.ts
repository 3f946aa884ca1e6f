import { describe, it, expect } from '@jest/globals';
import { MAX_REASON_BYTES, parseReconcileMessage } from '../../../lib/queue/message.js';

describe('parseReconcileMessage', () => {
  it.each([
    {
      name: 'a key with three valid parts is accepted and split',
      body: '{"key":"prod-eks/tidb-system/basic"}',
      message: { key: 'prod-eks/tidb-system/basic', ref: { k8sCluster: 'prod-eks', namespace: 'tidb-system', name: 'basic' } },
    },
    {
      name: 'a reason is kept when it is a string',
      body: '{"key":"eks/tidb/basic","reason":"watch: StatefulSet basic-pd modified"}',
      message: {
        key: 'eks/tidb/basic',
        ref: { k8sCluster: 'eks', namespace: 'tidb', name: 'basic' },
        reason: 'watch: StatefulSet basic-pd modified',
      },
    },
    {
      name: 'unknown fields are ignored so producers can add fields',
      body: '{"key":"eks/tidb/basic","deadlineAtMs":1767225600000}',
      message: { key: 'eks/tidb/basic', ref: { k8sCluster: 'eks', namespace: 'tidb', name: 'basic' } },
    },
    {
      name: "a timer's due time is kept",
      body: '{"key":"eks/tidb/basic","reason":"timer:wake","enqueuedAtMs":1767225600000,"dueAtMs":1767225601000}',
      message: { key: 'eks/tidb/basic', ref: { k8sCluster: 'eks', namespace: 'tidb', name: 'basic' }, reason: 'timer:wake', dueAtMs: 1767225601000 },
    },
    {
      name: 'a TiDB Operator re-check asked is kept; false is no ask',
      body: '{"key":"eks/tidb/basic","reason":"x","checkTidbOperator":true}',
      message: { key: 'eks/tidb/basic', ref: { k8sCluster: 'eks', namespace: 'tidb', name: 'basic' }, reason: 'x', checkTidbOperator: true },
    },
    {
      name: "a reservation of the API budget is kept (docs/adr/0028)",
      body: '{"key":"eks/tidb/basic","reason":"watch","budgetAtMs":1767225601500}',
      message: { key: 'eks/tidb/basic', ref: { k8sCluster: 'eks', namespace: 'tidb', name: 'basic' }, reason: 'watch', budgetAtMs: 1767225601500 },
    },
    {
      name: 'a re-check of false is no ask',
      body: '{"key":"eks/tidb/basic","reason":"x","checkTidbOperator":false}',
      message: { key: 'eks/tidb/basic', ref: { k8sCluster: 'eks', namespace: 'tidb', name: 'basic' }, reason: 'x' },
    },
    {
      name: 'a name may be a DNS-1123 subdomain with dots',
      body: '{"key":"local.kind/ns1/db.v8"}',
      message: { key: 'local.kind/ns1/db.v8', ref: { k8sCluster: 'local.kind', namespace: 'ns1', name: 'db.v8' } },
    },
  ])('$name', ({ body, message }) => {
    // Act
    const result = parseReconcileMessage(body);

    // Assess
    expect(result).toEqual({ ok: true, message: { kind: 'TidbCluster', ...message } });
  });

  it.each([
    { name: 'a body that is not JSON names the body', body: 'not json', field: 'body', says: 'not valid JSON' },
    { name: 'a JSON array is not a message', body: '["eks/tidb/basic"]', field: 'body', says: 'got an array' },
    { name: 'JSON null is not a message', body: 'null', field: 'body', says: 'got null' },
    { name: 'a bare string is not a message', body: '"eks/tidb/basic"', field: 'body', says: 'got a string' },
    { name: 'a message without a key names the key', body: '{"reason":"sweep"}', field: 'key', says: 'key is missing' },
    { name: 'a key must be a string', body: '{"key":42}', field: 'key', says: 'got a number' },
    { name: 'a key with two parts is rejected', body: '{"key":"tidb/basic"}', field: 'key', says: '"tidb/basic"' },
    { name: 'a key with four parts is rejected', body: '{"key":"eks/tidb/basic/pd"}', field: 'key', says: '<k8sCluster>/<namespace>/<name>' },
    { name: 'an empty key part is rejected as that part', body: '{"key":"eks//basic"}', field: 'key.namespace', says: 'DNS-1123 label' },
    { name: 'a cluster part with a space is rejected', body: '{"key":"my eks/tidb/basic"}', field: 'key.k8sCluster', says: '"my eks"' },
    { name: 'an upper-case namespace is rejected', body: '{"key":"eks/TiDB/basic"}', field: 'key.namespace', says: '"TiDB"' },
    { name: 'a namespace longer than 63 characters is rejected', body: `{"key":"eks/${'a'.repeat(64)}/basic"}`, field: 'key.namespace', says: 'at most 63' },
    { name: 'a name ending in a dash is rejected', body: '{"key":"eks/tidb/basic-"}', field: 'key.name', says: '"basic-"' },
    { name: 'a name longer than 253 characters is rejected', body: `{"key":"eks/tidb/${'a'.repeat(254)}"}`, field: 'key.name', says: 'at most 253' },
    { name: 'a reason must be a string', body: '{"key":"eks/tidb/basic","reason":{"kind":"timer"}}', field: 'reason', says: 'got an object' },
    { name: 'a due time must be a number', body: '{"key":"eks/tidb/basic","reason":"timer:wake","dueAtMs":"soon"}', field: 'dueAtMs', says: 'got a string' },
    { name: "a budget reservation's start must be a number", body: '{"key":"eks/tidb/basic","budgetAtMs":"later"}', field: 'budgetAtMs', says: 'got a string' },
    { name: 'a TiDB Operator re-check must be a boolean', body: '{"key":"eks/tidb/basic","checkTidbOperator":"yes"}', field: 'checkTidbOperator', says: 'got a string' },
  ])('$name', ({ body, field, says }) => {
    // Act
    const result = parseReconcileMessage(body);

    // Assess
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.field).toBe(field);
    expect(result.error.message).toContain(says);
  });

  it.each([
    { name: 'a body that is a number names the body', body: 42, field: 'body', says: 'body must be a string, got a number' },
    { name: 'a body that is null names the body', body: null, field: 'body', says: 'got null' },
    { name: 'a missing body names the body', body: undefined, field: 'body', says: 'got an undefined' },
    { name: 'a body that is already an object names the body', body: { key: 'eks/tidb/basic' }, field: 'body', says: 'got an object' },
    { name: 'a key of another Kubernetes cluster names key.k8sCluster', body: '{"key":"other-eks/demo/basic"}', field: 'key.k8sCluster', says: '"other-eks" is not the Kubernetes cluster this deployment manages ("eks")' },
    { name: 'the managed cluster is compared exactly (case matters)', body: '{"key":"EKS/demo/basic"}', field: 'key.k8sCluster', says: '"EKS"' },
  ])('$name', ({ body, field, says }) => {
    // Act
    const result = parseReconcileMessage(body, { k8sCluster: 'eks' });

    // Assess
    expect(result).toEqual({ ok: false, error: { field, message: expect.stringContaining(says) } });
  });

  it('a key of the managed Kubernetes cluster is accepted', () => {
    // Act
    const result = parseReconcileMessage('{"key":"eks/demo/basic"}', { k8sCluster: 'eks' });

    // Assess
    expect(result).toEqual({ ok: true, message: { key: 'eks/demo/basic', kind: 'TidbCluster', ref: { k8sCluster: 'eks', namespace: 'demo', name: 'basic' } } });
  });

  it.each([
    { name: 'a key in a watched namespace is accepted', key: 'eks/tidb-a/basic', error: undefined },
    { name: 'a key in another namespace is refused, naming it', key: 'eks/tidb-b/basic', error: 'key.namespace "tidb-b" is not a namespace this deployment watches (WATCH_NAMESPACES: tidb-a,tidb-c)' },
  ])('namespace-scoped: $name', ({ key, error }) => {
    // Act
    const result = parseReconcileMessage(JSON.stringify({ key }), { k8sCluster: 'eks', watchNamespaces: ['tidb-a', 'tidb-c'] });

    // Assess
    expect(result.ok ? undefined : result.error).toEqual(error === undefined ? undefined : { field: 'key.namespace', message: error });
  });

  it.each([
    { name: 'a 500 KB reason', reason: `watch: ${'x'.repeat(500 * 1024)}`, prefix: 'watch: xxx' },
    { name: 'a long reason of multi-byte characters, never cut inside one', reason: '节点'.repeat(100_000), prefix: '节点节点' },
  ])('an oversized reason is cut to MAX_REASON_BYTES, saying how much went: $name', ({ reason, prefix }) => {
    // Act
    const result = parseReconcileMessage(JSON.stringify({ key: 'eks/demo/basic', reason }));

    // Assess
    const kept = result.ok ? (result.message.reason ?? '') : '';
    expect(kept.startsWith(prefix)).toBe(true);
    expect(kept).toMatch(/^[^\uFFFD]*… \[cut: \d+ bytes\]$/);
    expect(Buffer.byteLength(kept.replace(/… \[cut: \d+ bytes\]$/, ''))).toBeLessThanOrEqual(MAX_REASON_BYTES);
    expect(Buffer.byteLength(kept.replace(/… \[cut: \d+ bytes\]$/, ''))).toBeGreaterThan(MAX_REASON_BYTES - 4);
  });

  it.each([
    { name: 'a 100 KB key without its parts', key: 'k'.repeat(102_400), field: 'key' },
    { name: 'a 100 KB namespace', key: `eks/${'n'.repeat(102_400)}/basic`, field: 'key.namespace' },
    { name: 'a 100 KB name', key: `eks/demo/${'n'.repeat(102_400)}`, field: 'key.name' },
    { name: 'a 100 KB cluster name', key: `${'c'.repeat(102_400)}/demo/basic`, field: 'key.k8sCluster' },
  ])('$name is refused with at most 1 KB of it echoed and its size stated', ({ key, field }) => {
    // Act
    const result = parseReconcileMessage(JSON.stringify({ key }));
    // Assess
    expect(result.ok).toBe(false);
    const error = result.ok ? undefined : result.error;
    expect(error?.field).toBe(field);
    expect(Buffer.byteLength(error?.message ?? '')).toBeLessThan(1_200);
    expect(error?.message).toMatch(/… \(\d{6} bytes, first 1024 shown\)/);
  });
});
