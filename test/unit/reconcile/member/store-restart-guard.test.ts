/**
 * The guard before a TiKV or TiFlash pod restarts for an upgrade (member/store-restart-guard.ts):
 * another store not Up holds it unless the cluster opts out; a pod down already is never held.
 */
import { describe, expect, it } from '@jest/globals';

import { isAllStoresUpChecked, isDownAlready, otherStoresNotUp, type StoreStatusView } from '../../../../lib/reconcile/member/store-restart-guard.js';
import { testPod } from '../../../support/fixtures.js';

const store = (id: string, state: string) => [id, { id, podName: `basic-tikv-${Number(id) - 1}`, state }] as const;
const stores = (...rows: (readonly [string, { id: string; podName: string; state: string }])[]): StoreStatusView => ({ stores: Object.fromEntries(rows) });

describe('another store not Up holds a restart', () => {
  it.each([
    { name: 'every other store Up: nothing holds', status: stores(store('1', 'Up'), store('2', 'Up'), store('3', 'Up')), pod: 'basic-tikv-1', held: undefined },
    { name: 'the pod\'s own store down holds nothing', status: stores(store('1', 'Up'), store('2', 'Down'), store('3', 'Up')), pod: 'basic-tikv-1', held: undefined },
    { name: 'another store Disconnected holds, named with its pod', status: stores(store('1', 'Disconnected'), store('2', 'Up')), pod: 'basic-tikv-1', held: 'store 1 (basic-tikv-0) is Disconnected' },
    { name: 'an Offline store (being removed) holds', status: stores(store('1', 'Up'), store('3', 'Offline')), pod: 'basic-tikv-1', held: 'store 3 (basic-tikv-2) is Offline' },
    { name: 'every store not Up is named, in id order', status: stores(store('10', 'Down'), store('9', 'Disconnected'), store('2', 'Up')), pod: 'basic-tikv-1', held: 'store 9 (basic-tikv-8) is Disconnected, store 10 (basic-tikv-9) is Down' },
    {
      name: 'a store failed over holds nothing',
      status: { ...stores(store('1', 'Down'), store('2', 'Up')), failureStores: { 'basic-tikv-0': { storeID: '1' } } },
      pod: 'basic-tikv-1',
      held: undefined,
    },
  ])('$name', ({ status, pod, held }) => {
    expect(otherStoresNotUp(status, pod)).toBe(held);
  });

  it.each([
    { name: 'no annotation: checked', annotations: undefined, checked: true },
    { name: '"true": checked', annotations: { 'tidb.pingcap.com/tikv-check-all-stores-up-before-upgrade': 'true' }, checked: true },
    { name: '"false": not checked (v1\'s default)', annotations: { 'tidb.pingcap.com/tikv-check-all-stores-up-before-upgrade': 'false' }, checked: false },
  ])('the cluster annotation: $name', ({ annotations, checked }) => {
    expect(isAllStoresUpChecked(annotations)).toBe(checked);
  });
});

describe('a pod down already restarts at once', () => {
  it.each([
    { name: 'not Ready and its store Disconnected', ready: false, state: 'Disconnected', down: true },
    { name: 'not Ready and no store', ready: false, state: undefined, down: true },
    { name: 'not Ready but its store Up (it may hold leaders)', ready: false, state: 'Up', down: false },
    { name: 'Ready with its store Down (the pod is serving again)', ready: true, state: 'Down', down: false },
  ])('$name: $down', ({ ready, state, down }) => {
    expect(isDownAlready(testPod('basic-tikv-0', { component: 'tikv', ready }), state)).toBe(down);
  });

  it('no pod is not down already (nothing to restart)', () => {
    expect(isDownAlready(undefined, 'Down')).toBe(false);
  });
});
