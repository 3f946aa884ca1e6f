import { describe, it, expect } from '@jest/globals';
import { VirtualClock } from '../../lib/platform/clock.js';
import type { KubeObject } from '../../lib/sim/object.js';
import { ObjectStore } from '../../lib/sim/store.js';
import type { LabelEquals } from '../../lib/sim/store-bucket.js';

/** Two namespaces, each with config maps of instances x and y, and cluster-scoped volumes of both. */
function world(): ObjectStore {
  const s = new ObjectStore(new VirtualClock(Date.UTC(2026, 0, 1)));
  for (const ns of ['a', 'b']) {
    s.create('Namespace', { metadata: { name: ns } });
    for (const instance of ['x', 'y']) s.create('ConfigMap', { metadata: { name: `cm-${instance}`, namespace: ns, labels: { app: 'demo', instance } } });
  }
  for (let i = 0; i < 20; i++) {
    const instance = i < 2 ? 'x' : 'y';
    s.create('PersistentVolume', {
      metadata: { name: `pv-${String(i).padStart(2, '0')}`, labels: { instance, ns: 'a' } },
      spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: `/data/${i}` } },
    });
  }
  return s;
}

const names = (objects: readonly KubeObject[]): string[] => objects.map((o) => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`);

/** The plain filter the index must agree with: every term an exact label match. */
const carrying = (labels: LabelEquals) => (o: KubeObject): boolean => labels.every(({ key, value }) => o.metadata.labels?.[key] === value);

type Row = { name: string; change?: (s: ObjectStore) => void; kind: string; namespace?: string; labels: LabelEquals; want: string[] };

const ROWS: Row[] = [
  { name: 'a cluster-scoped kind lists only the volumes carrying the label', kind: 'PersistentVolume', labels: [{ key: 'instance', value: 'x' }], want: ['/pv-00', '/pv-01'] },
  { name: 'every term must hold, whichever is narrowest', kind: 'PersistentVolume', labels: [{ key: 'ns', value: 'a' }, { key: 'instance', value: 'x' }], want: ['/pv-00', '/pv-01'] },
  { name: 'a value no object carries lists nothing', kind: 'PersistentVolume', labels: [{ key: 'instance', value: 'z' }], want: [] },
  { name: 'a namespaced list stays in its namespace', kind: 'ConfigMap', namespace: 'b', labels: [{ key: 'instance', value: 'x' }], want: ['b/cm-x'] },
  { name: 'across namespaces, in namespace/name order', kind: 'ConfigMap', labels: [{ key: 'instance', value: 'y' }], want: ['a/cm-y', 'b/cm-y'] },
  {
    name: 'an update that changes a label moves the object in the index',
    change: (s) => {
      const pv = s.mustGet('PersistentVolume', undefined, 'pv-05');
      s.update('PersistentVolume', { ...pv, metadata: { ...pv.metadata, labels: { instance: 'x', ns: 'a' } } });
    },
    kind: 'PersistentVolume',
    labels: [{ key: 'instance', value: 'x' }],
    want: ['/pv-00', '/pv-01', '/pv-05'],
  },
  {
    name: 'an update that drops the label takes the object out',
    change: (s) => {
      const pv = s.mustGet('PersistentVolume', undefined, 'pv-01');
      s.update('PersistentVolume', { ...pv, metadata: { ...pv.metadata, labels: undefined } });
    },
    kind: 'PersistentVolume',
    labels: [{ key: 'instance', value: 'x' }],
    want: ['/pv-00'],
  },
  { name: 'a deleted object is gone from the index', change: (s) => void s.delete('PersistentVolume', undefined, 'pv-00'), kind: 'PersistentVolume', labels: [{ key: 'instance', value: 'x' }], want: ['/pv-01'] },
  {
    name: 'a status write keeps the object listed',
    change: (s) => {
      const pv = s.mustGet('PersistentVolume', undefined, 'pv-00');
      s.update('PersistentVolume', { ...pv, status: { phase: 'Available' } }, { subresource: 'status' });
    },
    kind: 'PersistentVolume',
    labels: [{ key: 'instance', value: 'x' }],
    want: ['/pv-00', '/pv-01'],
  },
];

describe('object store: a list selected by label reads only the objects carrying it', () => {
  it.each(ROWS)('$name', ({ change, kind, namespace, labels, want }) => {
    // Prepare
    const s = world();
    change?.(s);
    let looked = 0;
    const filter = (o: KubeObject): boolean => (looked++, carrying(labels)(o));

    // Act
    const indexed = s.list(kind, namespace, filter, labels);

    // Assess
    expect(names(indexed)).toEqual(want);
    expect(names(indexed)).toEqual(names(s.list(kind, namespace, carrying(labels))));
    expect(looked).toBeLessThanOrEqual(Math.max(want.length, 2));
  });

  it('a list without labels still reads (and returns) everything in scope', () => {
    // Prepare
    const s = world();
    let looked = 0;

    // Act
    const all = s.list('PersistentVolume', undefined, () => (looked++, true), []);

    // Assess
    expect(all).toHaveLength(20);
    expect(looked).toBe(20);
  });
});
