import { describe, it, expect } from '@jest/globals';
import type { Context } from 'aws-lambda';
import { handler as exporterHandler } from '../../../functions/exporter.js';
import { handler as sweepHandler } from '../../../functions/sweep.js';
import { handler as timerHandler } from '../../../functions/timer.js';

const context = { awsRequestId: 'req-1', getRemainingTimeInMillis: () => 30000 } as unknown as Context;

describe('deployed entry points without their configuration', () => {
  it.each([
    { name: 'sweep fails naming the missing variables instead of pretending to sweep', handler: sweepHandler, says: /CLUSTER_NAME: not set.*KUBE_ENDPOINT: not set.*STATE_TABLE: not set/ },
    { name: 'timer fails naming the missing variables instead of pretending to fire', handler: timerHandler, says: /CLUSTER_NAME: not set.*RECONCILE_QUEUE_URL: not set/ },
  ])('$name', async ({ handler, says }) => {
    // Act
    const run = handler({}, context);

    // Assess
    await expect(run).rejects.toThrow(says);
  });

  it('exporter refuses to watch without its configuration, naming the missing variables', async () => {
    // Act
    const run = exporterHandler({}, context);

    // Assess
    await expect(run).rejects.toThrow(/CLUSTER_NAME: not set.*STATE_TABLE: not set.*RECONCILE_QUEUE_URL: not set/);
  });
});
