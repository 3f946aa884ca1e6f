/**
 * How a planned action reads in `tidb-reconciler plan` and the step records: an Event reported once
 * says so, since the executor skips it while a recent Event has its reason and message.
 */
import { describe, expect, it } from '@jest/globals';

import type { EventAction } from '../../lib/model/action.js';
import { describeAction } from '../../lib/step/describe.js';

const event = (once: boolean): EventAction => ({
  kind: 'event',
  type: 'Warning',
  reason: 'FailedScaleIn',
  message: 'refused',
  object: { kind: 'TidbCluster', namespace: 'demo', name: 'basic' },
  ...(once ? { once: true as const } : {}),
});

describe('describeAction: Events', () => {
  it.each([
    { name: 'an Event recorded per occurrence', once: false, want: 'event Warning FailedScaleIn on TidbCluster demo/basic' },
    { name: 'an Event reported once while its condition persists', once: true, want: 'event Warning FailedScaleIn on TidbCluster demo/basic (once: not again while a recent Event has it)' },
  ])('$name', ({ once, want }) => {
    // Act
    const text = describeAction(event(once));

    // Assess
    expect(text).toBe(want);
  });
});
