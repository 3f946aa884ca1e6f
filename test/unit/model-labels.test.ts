/**
 * TiDB Operator's labels and the instance name, from the one module every user reads them from:
 * the rules that label objects, the observer that selects them and the exporter that maps a watched
 * object back to its cluster agree — an empty instance label counts as absent everywhere.
 */
import { describe, expect, it } from '@jest/globals';

import { clusterKeyOf } from '../../lib/exporter/cluster-key.js';
import type { KubeObject, LabelSelector, ObjectList, OwnedKind } from '../../lib/kube/port.js';
import type { TidbCluster } from '../../lib/model/kube.js';
import { componentLabels, instanceLabelOf, instanceName, LABEL } from '../../lib/model/labels.js';
import { LiveObserver } from '../../lib/wiring/observer.js';
import { FakeKube, fakeClients } from './functions/runtime-fakes.js';

const tc = (labels?: Record<string, string>): TidbCluster => ({
  apiVersion: 'pingcap.com/v1alpha1',
  kind: 'TidbCluster',
  metadata: { name: 'basic', namespace: 'demo', uid: 'uid-basic', resourceVersion: '1', ...(labels ? { labels } : {}) },
  spec: { pd: { replicas: 1 } },
});

/** A Kubernetes port that records the label selector of every owned-object LIST. */
class SelectorRecordingKube extends FakeKube {
  readonly selectors: LabelSelector[] = [];
  override async listOwned(_namespace?: string, _kind?: OwnedKind, selector?: LabelSelector): Promise<ObjectList> {
    if (selector !== undefined) this.selectors.push(selector);
    return super.listOwned();
  }
}

describe('the instance name', () => {
  it.each<{ name: string; labels: Record<string, string> | undefined; expected: string }>([
    { name: 'no labels: the cluster name', labels: undefined, expected: 'basic' },
    { name: 'no instance label: the cluster name', labels: { team: 'x' }, expected: 'basic' },
    { name: 'an empty instance label: the cluster name', labels: { [LABEL.instance]: '' }, expected: 'basic' },
    { name: 'an instance label: its value', labels: { [LABEL.instance]: 'prod' }, expected: 'prod' },
  ])('$name', ({ labels, expected }) => {
    // Act
    const name = instanceName(tc(labels));

    // Assess
    expect(name).toBe(expected);
  });

  it.each<{ name: string; labels: Record<string, string>; expected: string | undefined }>([
    { name: 'absent', labels: {}, expected: undefined },
    { name: 'empty', labels: { [LABEL.instance]: '' }, expected: undefined },
    { name: 'set', labels: { [LABEL.instance]: 'basic' }, expected: 'basic' },
  ])('an object\'s instance label when $name', ({ labels, expected }) => {
    // Act
    const value = instanceLabelOf(labels);

    // Assess
    expect(value).toBe(expected);
  });
});

describe('an empty instance label on the TidbCluster: every user reads the cluster name', () => {
  it('the rules label objects, the observer selects them and the exporter maps them back by the same name', async () => {
    // Prepare
    const cluster = tc({ [LABEL.instance]: '' });
    const kube = new SelectorRecordingKube([cluster as unknown as KubeObject]);
    const observer = new LiveObserver(fakeClients(kube));

    // Act
    await observer.observe({ key: 'eks/demo/basic', ref: { k8sCluster: 'eks', namespace: 'demo', name: 'basic' }, fence: 1, nowMs: 0, signal: new AbortController().signal });
    const labelled = componentLabels(cluster, 'pd');
    const pod: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'basic-pd-0', namespace: 'demo', labels: labelled } };

    // Assess
    expect(labelled[LABEL.instance]).toBe('basic');
    expect(kube.selectors.length).toBeGreaterThan(0);
    expect(kube.selectors).toEqual(kube.selectors.map(() => expect.objectContaining({ [LABEL.instance]: 'basic' })));
    expect(clusterKeyOf('Pod', pod, 'eks')).toBe('eks/demo/basic');
  });

  it('the exporter maps an object with an empty instance label by its controller, as a missing one', () => {
    // Prepare
    const pod: KubeObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'basic-pd-0',
        namespace: 'demo',
        labels: { [LABEL.managedBy]: 'tidb-operator', [LABEL.instance]: '' },
        ownerReferences: [{ apiVersion: 'pingcap.com/v1alpha1', kind: 'TidbCluster', name: 'basic', uid: 'u', controller: true }],
      },
    };

    // Act
    const key = clusterKeyOf('Pod', pod, 'eks');

    // Assess
    expect(key).toBe('eks/demo/basic');
  });
});
