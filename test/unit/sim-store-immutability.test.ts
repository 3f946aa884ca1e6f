import { describe, it, expect } from '@jest/globals';
import { VirtualClock } from '../../lib/platform/clock.js';
import type { KubeObject } from '../../lib/sim/object.js';
import { ObjectStore, type StoreEvent } from '../../lib/sim/store.js';

function store(): { store: ObjectStore; events: StoreEvent[] } {
  const s = new ObjectStore(new VirtualClock(Date.UTC(2026, 0, 1)));
  const events: StoreEvent[] = [];
  s.subscribe((ev) => events.push(ev));
  for (const ns of ['a', 'b']) s.create('Namespace', { metadata: { name: ns } });
  for (const [ns, name] of [['b', 'x'], ['a', 'y'], ['a', 'x']] as const) {
    s.create('ConfigMap', { metadata: { name, namespace: ns, labels: { app: 'demo' } }, data: { n: '0' } });
  }
  s.create('Pod', { metadata: { name: 'p', namespace: 'a' }, spec: { containers: [{ name: 'main', image: 'pd:v1' }] } });
  return { store: s, events };
}

type Reader = { name: string; read: (s: ObjectStore, events: StoreEvent[]) => KubeObject };

const READERS: Reader[] = [
  { name: 'get', read: (s) => s.mustGet('ConfigMap', 'a', 'x') },
  { name: 'list of one namespace', read: (s) => s.list('ConfigMap', 'a')[0] as KubeObject },
  { name: 'list of every namespace', read: (s) => s.list('ConfigMap')[0] as KubeObject },
  { name: 'the object create returns', read: (s) => s.create('ConfigMap', { metadata: { name: 'new', namespace: 'a', labels: { app: 'demo' } }, data: { n: '0' } }) },
  { name: 'the object update returns', read: (s) => s.update('ConfigMap', { ...s.mustGet('ConfigMap', 'a', 'x'), data: { n: '1' } }) },
  { name: 'a watcher\'s event object', read: (_s, events) => (events.find((e) => e.kind === 'ConfigMap') as StoreEvent).object },
];

describe('object store: handed-out objects are the stored ones, frozen', () => {
  it.each(READERS)('$name cannot be changed at any depth', ({ read }) => {
    // Prepare
    const w = store();
    const obj = read(w.store, w.events);
    const before = structuredClone(w.store.mustGet('ConfigMap', obj.metadata.namespace, obj.metadata.name ?? ''));

    // Act
    const writes = [
      () => void (obj.metadata.labels = {}),
      () => void ((obj.metadata.labels as Record<string, string>).app = 'changed'),
      () => void ((obj.data as Record<string, string>).n = '9'),
      () => void delete (obj as Record<string, unknown>).data,
    ];

    // Assess
    for (const write of writes) expect(write).toThrow(TypeError);
    expect(w.store.mustGet('ConfigMap', obj.metadata.namespace, obj.metadata.name ?? '')).toEqual(before);
  });

  it('a write copies: the caller\'s input is not kept, and an earlier reference still shows the old object', () => {
    // Prepare
    const w = store();
    const old = w.store.mustGet('ConfigMap', 'a', 'x');
    const input = { ...structuredClone(old), data: { n: '1' } };

    // Act
    const written = w.store.update('ConfigMap', input);
    input.data.n = 'changed by the caller afterwards';

    // Assess
    expect(old.data).toEqual({ n: '0' });
    expect(written.data).toEqual({ n: '1' });
    expect(w.store.mustGet('ConfigMap', 'a', 'x')).toBe(written);
    expect(Number(written.metadata.resourceVersion)).toBeGreaterThan(Number(old.metadata.resourceVersion));
  });

  it('a status write shares the unchanged, frozen spec with the previous version', () => {
    // Prepare
    const w = store();
    const old = w.store.mustGet('Pod', 'a', 'p');

    // Act
    const written = w.store.update('Pod', { ...old, status: { phase: 'Running' } }, { subresource: 'status' });

    // Assess
    expect(written.spec).toBe(old.spec);
    expect(written.status).toEqual({ phase: 'Running' });
    expect(Object.isFrozen(written.status)).toBe(true);
    expect(old.status?.phase).not.toBe('Running');
  });

  it('a deleted object\'s event carries a frozen copy with the deletion\'s resourceVersion', () => {
    // Prepare
    const w = store();
    const old = w.store.mustGet('ConfigMap', 'b', 'x');

    // Act
    w.store.delete('ConfigMap', 'b', 'x');

    // Assess
    const ev = w.events.at(-1) as StoreEvent;
    expect(ev.type).toBe('DELETED');
    expect(ev.previous).toBe(old);
    expect(Object.isFrozen(ev.object.metadata)).toBe(true);
    expect(ev.object.metadata.resourceVersion).toBe(String(w.store.currentResourceVersion()));
    expect(old.metadata.resourceVersion).not.toBe(ev.object.metadata.resourceVersion);
  });

  it.each([
    { name: 'one namespace lists only its own objects', namespace: 'a', want: ['a/x', 'a/y'] },
    { name: 'every namespace lists all, by namespace/name', namespace: undefined, want: ['a/x', 'a/y', 'b/x'] },
  ])('$name', ({ namespace, want }) => {
    // Prepare
    const w = store();

    // Act
    const listed = w.store.list('ConfigMap', namespace);

    // Assess
    expect(listed.map((o) => `${o.metadata.namespace}/${o.metadata.name}`)).toEqual(want);
  });

  it('a listed namespace forgets an object once it is deleted', () => {
    // Prepare
    const w = store();

    // Act
    w.store.delete('ConfigMap', 'a', 'x');

    // Assess
    expect(w.store.list('ConfigMap', 'a').map((o) => o.metadata.name)).toEqual(['y']);
    expect(w.store.get('ConfigMap', 'a', 'x')).toBeUndefined();
  });
});
