import { describe, expect, it } from '@jest/globals';
import { statusChanges } from '../../lib/cli/plan-format.js';

describe('plan: the status fields a step would change', () => {
  it.each([
    { name: 'the same status changes nothing', before: { pd: { phase: 'Normal' } }, after: { pd: { phase: 'Normal' } }, changes: [] },
    { name: 'a leaf that changes', before: { pd: { phase: 'Normal', synced: true } }, after: { pd: { phase: 'Scale', synced: true } }, changes: [{ path: 'status.pd.phase', before: 'Normal', after: 'Scale' }] },
    { name: 'a field that appears', before: {}, after: { pd: { statefulSet: { replicas: 0 } } }, changes: [{ path: 'status.pd', before: undefined, after: { statefulSet: { replicas: 0 } } }] },
    { name: 'a field that goes away', before: { pd: { image: 'x' } }, after: { pd: {} }, changes: [{ path: 'status.pd.image', before: 'x', after: undefined }] },
    { name: 'list items compared per index', before: { conditions: [{ type: 'Ready', status: 'True' }] }, after: { conditions: [{ type: 'Ready', status: 'False' }] }, changes: [{ path: 'status.conditions[0].status', before: 'True', after: 'False' }] },
    { name: 'a list that grows is one change', before: { c: [1] }, after: { c: [1, 2] }, changes: [{ path: 'status.c', before: [1], after: [1, 2] }] },
  ])('$name', ({ before, after, changes }) => {
    expect(statusChanges(before, after)).toEqual(changes);
  });
});
