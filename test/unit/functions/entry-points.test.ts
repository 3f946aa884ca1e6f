import { describe, it, expect } from '@jest/globals';
import type { Context } from 'aws-lambda';
import { handler as adminHandler } from '../../../functions/admin.js';
import { handler as exporterHandler } from '../../../functions/exporter.js';
import { handler as sweepHandler } from '../../../functions/sweep.js';
import { handler as timerHandler } from '../../../functions/timer.js';

const context = { awsRequestId: 'req-1', getRemainingTimeInMillis: () => 30000 } as unknown as Context;

describe('entry points before the runtime is wired', () => {
  it.each([
    { name: 'sweep fails loudly instead of pretending to sweep', handler: sweepHandler, says: 'sweep is not available until the runtime is wired' },
    { name: 'timer fails loudly instead of pretending to fire', handler: timerHandler, says: 'timer is not available until the runtime is wired' },
    { name: 'exporter fails loudly instead of pretending to watch', handler: exporterHandler, says: 'exporter is not available until the runtime is wired' },
  ])('$name', async ({ handler, says }) => {
    // Act
    const run = handler({}, context);

    // Assess
    await expect(run).rejects.toThrow(says);
  });

  it('admin answers an invalid request with the bad field', async () => {
    // Act
    const result = await adminHandler({ action: 'force-upgrade', cluster: { namespace: 'tidb', name: 'basic' }, component: 'tiproxy' }, context);

    // Assess
    expect(result).toEqual({
      ok: false,
      error: { code: 'invalid-request', field: 'component', message: expect.stringContaining('tiproxy') },
    });
  });

  it('admin answers a valid request with not-available rather than pretending to act', async () => {
    // Act
    const result = await adminHandler({ action: 'pause', cluster: { namespace: 'tidb', name: 'basic' } }, context);

    // Assess
    expect(result).toEqual({
      ok: false,
      error: { code: 'not-available', message: 'pause for tidb/basic is not available until the runtime is wired' },
    });
  });
});
