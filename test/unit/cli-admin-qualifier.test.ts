import { describe, expect, it } from '@jest/globals';
import { LIVE_ALIAS, qualifierFor } from '../../lib/cli/admin-invoke.js';

describe('a direct invoke of the admin function goes to its live alias', () => {
  it.each([
    { name: 'a function name', fn: 'tidb-reconciler-prod-admin', qualifier: LIVE_ALIAS },
    { name: 'a function ARN', fn: 'arn:aws:lambda:eu-west-1:123456789012:function:tidb-reconciler-prod-admin', qualifier: LIVE_ALIAS },
    { name: 'a partial ARN', fn: '123456789012:function:tidb-reconciler-prod-admin', qualifier: LIVE_ALIAS },
    { name: 'a name with a version', fn: 'tidb-reconciler-prod-admin:7', qualifier: undefined },
    { name: 'an ARN with an alias', fn: 'arn:aws:lambda:eu-west-1:123456789012:function:tidb-reconciler-prod-admin:blue', qualifier: undefined },
  ])('$name: qualifier $qualifier', ({ fn, qualifier }) => {
    expect(qualifierFor(fn)).toBe(qualifier);
  });
});
