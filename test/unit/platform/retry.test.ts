import { describe, expect, it } from '@jest/globals';
import { ComponentCaller, isRetryableComponentFailure } from '../../../lib/components/caller.js';
import type { ComponentHttp, ComponentRequest, Endpoint } from '../../../lib/components/transport.js';
import { isRetryableKubeFailure, kubeError } from '../../../lib/kube/errors.js';
import { callTimeoutMs, timeoutError } from '../../../lib/kube/http.js';
import { HandlerClock } from '../../../lib/local/handler-clock.js';
import { VirtualClock } from '../../../lib/platform/clock.js';
import { ConflictError, NotFoundError, TerminalError, TransientError } from '../../../lib/platform/errors.js';
import { type RetryPolicy, parseRetryAfterSeconds, retryDelayMs, withRetries } from '../../../lib/platform/retry.js';

const POLICY: RetryPolicy = { attempts: 5, baseMs: 100, capMs: 1_000 };
const STATUS = (code: number, reason: string) => JSON.stringify({ kind: 'Status', code, reason, message: `${reason} happened` });

/** A virtual clock whose sleeps move time forward by themselves (as the simulated stack's handlers). */
function sleepingClock(): { clock: HandlerClock; virtual: VirtualClock } {
  const virtual = new VirtualClock();
  return { clock: new HandlerClock(virtual, () => Promise.resolve()), virtual };
}

/** An attempt that fails with `errors` in order, then answers 'ok'; counts its calls. */
function failing(errors: unknown[]): { attempt: () => Promise<string>; calls: () => number } {
  let calls = 0;
  return {
    attempt: async () => {
      const err = errors[calls++];
      if (err !== undefined) throw err;
      return 'ok';
    },
    calls: () => calls,
  };
}

describe('retry delay: full jitter over min(cap, base·2^n), at least the server’s Retry-After', () => {
  it.each([
    { name: 'random 0 waits nothing', retry: 0, random: 0, after: undefined, expectedMs: 0 },
    { name: 'the first retry waits up to the base', retry: 0, random: 0.5, after: undefined, expectedMs: 50 },
    { name: 'the third retry waits up to 4 × base', retry: 2, random: 0.5, after: undefined, expectedMs: 200 },
    { name: 'a late retry is capped', retry: 9, random: 0.5, after: undefined, expectedMs: 500 },
    { name: 'an absurd retry count stays capped', retry: 10_000, random: 0.5, after: undefined, expectedMs: 500 },
    { name: 'random out of range is clamped below the ceiling', retry: 1, random: 7, after: undefined, expectedMs: 199 },
    { name: 'Retry-After longer than the jitter is the wait', retry: 0, random: 0.5, after: 1_000, expectedMs: 1_000 },
    { name: 'Retry-After is honoured even past the cap', retry: 9, random: 0.9, after: 5_000, expectedMs: 5_000 },
    { name: 'a jittered wait longer than Retry-After stands', retry: 9, random: 0.9, after: 100, expectedMs: 900 },
  ])('$name', ({ retry, random, after, expectedMs }) => {
    // Act
    const waitMs = retryDelayMs(POLICY, retry, () => random, after);

    // Assess
    expect(waitMs).toBe(expectedMs);
  });

  it('jitter stays within [0, ceiling) for every retry over many draws', () => {
    // Prepare
    let seed = 7;
    const random = () => ((seed = (seed * 48_271) % 2_147_483_647) / 2_147_483_647);

    for (let retry = 0; retry < 8; retry++) {
      const ceiling = Math.min(POLICY.capMs, POLICY.baseMs * 2 ** retry);
      // Act
      const waits = Array.from({ length: 200 }, () => retryDelayMs(POLICY, retry, random));

      // Assess
      expect(Math.min(...waits)).toBeGreaterThanOrEqual(0);
      expect(Math.max(...waits)).toBeLessThan(ceiling);
    }
  });

  it.each([
    { name: 'whole seconds', value: '3', expected: 3 },
    { name: 'with spaces', value: ' 1 ', expected: 1 },
    { name: 'an HTTP date is not used', value: 'Wed, 21 Oct 2015 07:28:00 GMT', expected: undefined },
    { name: 'a negative number is not used', value: '-1', expected: undefined },
    { name: 'no header', value: undefined, expected: undefined },
  ])('Retry-After header: $name', ({ value, expected }) => {
    expect(parseRetryAfterSeconds(value)).toBe(expected);
  });
});

describe('which Kubernetes failures are repeated', () => {
  const network = new TransientError('list Pods failed: fetch failed (ECONNRESET)', { cause: new Error('fetch failed') });
  let notAttempted: unknown;
  try {
    callTimeoutMs({ timeoutMs: 1000, deadlineAtMs: 0 }, 1, 'list Pods');
  } catch (err) {
    notAttempted = err;
  }
  it.each([
    { name: '500 InternalError', err: kubeError('x', 500, STATUS(500, 'InternalError')), retried: true },
    { name: '502 from a load balancer', err: kubeError('x', 502, '<html>bad gateway</html>'), retried: true },
    { name: '503 ServiceUnavailable', err: kubeError('x', 503, STATUS(503, 'ServiceUnavailable')), retried: true },
    { name: '504 Timeout', err: kubeError('x', 504, STATUS(504, 'Timeout')), retried: true },
    { name: '429 TooManyRequests', err: kubeError('x', 429, STATUS(429, 'TooManyRequests')), retried: true },
    { name: 'a reset connection', err: network, retried: true },
    { name: 'a call that timed out', err: timeoutError('list Pods', 1000, new Error('aborted')), retried: true },
    { name: '501 NotImplemented', err: kubeError('x', 501, STATUS(501, 'NotImplemented')), retried: false },
    { name: '409 Conflict (re-observe next step)', err: kubeError('x', 409, STATUS(409, 'Conflict')), retried: false },
    { name: '409 AlreadyExists', err: kubeError('x', 409, STATUS(409, 'AlreadyExists')), retried: false },
    { name: '404 NotFound', err: kubeError('x', 404, STATUS(404, 'NotFound')), retried: false },
    { name: '410 Gone (same answer again)', err: kubeError('x', 410, STATUS(410, 'Expired')), retried: false },
    { name: '401 Unauthorized', err: kubeError('x', 401, STATUS(401, 'Unauthorized')), retried: false },
    { name: '422 Invalid', err: kubeError('x', 422, STATUS(422, 'Invalid')), retried: false },
    { name: 'a call not attempted because the deadline passed', err: notAttempted, retried: false },
    { name: 'a terminal error', err: new TerminalError('bad spec'), retried: false },
    { name: 'a plain Error', err: new Error('bug'), retried: false },
  ])('$name → retried: $retried', ({ err, retried }) => {
    expect(isRetryableKubeFailure(err)).toBe(retried);
  });

  it('the 429’s Retry-After comes from the header, else from the Status details', () => {
    // Prepare
    const body = JSON.stringify({ kind: 'Status', code: 429, reason: 'TooManyRequests', message: 'slow down', details: { retryAfterSeconds: 2 } });

    // Act
    const fromHeader = kubeError('x', 429, body, 5);
    const fromDetails = kubeError('x', 429, body);

    // Assess
    expect((fromHeader.cause as { retryAfterMs?: number }).retryAfterMs).toBe(5_000);
    expect((fromDetails.cause as { retryAfterMs?: number }).retryAfterMs).toBe(2_000);
  });
});

describe('withRetries', () => {
  it('repeats transient failures until one succeeds, waiting on the clock', async () => {
    // Prepare
    const { clock, virtual } = sleepingClock();
    const start = virtual.nowMs();
    const op = failing([kubeError('x', 500, STATUS(500, 'InternalError')), kubeError('x', 503, STATUS(503, 'ServiceUnavailable'))]);

    // Act
    const result = await withRetries({ policy: POLICY, clock, random: () => 0.5 }, { isRetryable: isRetryableKubeFailure }, op.attempt);

    // Assess
    expect(result).toBe('ok');
    expect(op.calls()).toBe(3);
    expect(virtual.nowMs() - start).toBe(50 + 100);
  });

  it('honours Retry-After: a 429 asking for 2 s is not repeated sooner', async () => {
    // Prepare
    const { clock, virtual } = sleepingClock();
    const start = virtual.nowMs();
    const op = failing([kubeError('x', 429, STATUS(429, 'TooManyRequests'), 2)]);
    const call = { isRetryable: isRetryableKubeFailure, retryAfterMs: (err: unknown) => ((err as Error).cause as { retryAfterMs?: number }).retryAfterMs };

    // Act
    await withRetries({ policy: POLICY, clock, random: () => 0 }, call, op.attempt);

    // Assess
    expect(virtual.nowMs() - start).toBe(2_000);
  });

  it.each([
    { name: 'a conflict is thrown at once', err: new ConflictError('stale') },
    { name: 'a not-found is thrown at once', err: new NotFoundError('gone') },
    { name: 'a terminal error is thrown at once', err: new TerminalError('invalid') },
  ])('$name', async ({ err }) => {
    // Prepare
    const { clock } = sleepingClock();
    const op = failing([err]);

    // Act
    const outcome = withRetries({ policy: POLICY, clock, random: () => 0.5 }, { isRetryable: isRetryableKubeFailure }, op.attempt);

    // Assess
    await expect(outcome).rejects.toBe(err);
    expect(op.calls()).toBe(1);
  });

  it('gives up after the policy’s attempts with the last error', async () => {
    // Prepare
    const { clock } = sleepingClock();
    const errors = Array.from({ length: 9 }, (_, i) => kubeError(`try ${i}`, 500, STATUS(500, 'InternalError')));
    const op = failing(errors);

    // Act
    const outcome = withRetries({ policy: POLICY, clock, random: () => 0.5 }, { isRetryable: isRetryableKubeFailure }, op.attempt);

    // Assess
    await expect(outcome).rejects.toBe(errors[4]);
    expect(op.calls()).toBe(POLICY.attempts);
  });

  it.each([
    { name: 'a 300 ms budget', budgetMs: 300, random: 0.99 },
    { name: 'a 1 s budget', budgetMs: 1_000, random: 0.99 },
    { name: 'a budget shorter than Retry-After', budgetMs: 900, random: 0 },
    { name: 'no budget left at all', budgetMs: 0, random: 0.5 },
  ])('never waits past the deadline: $name', async ({ budgetMs, random }) => {
    // Prepare
    const { clock, virtual } = sleepingClock();
    const start = virtual.nowMs();
    const failure = () => kubeError('x', 429, STATUS(429, 'TooManyRequests'), 1);
    const op = failing(Array.from({ length: 50 }, failure));
    const call = { isRetryable: isRetryableKubeFailure, retryAfterMs: (err: unknown) => ((err as Error).cause as { retryAfterMs?: number }).retryAfterMs };
    const policy = { attempts: 50, baseMs: 100, capMs: 1_000 };

    // Act
    const outcome = withRetries({ policy, clock, random: () => random, deadlineAtMs: start + budgetMs }, call, op.attempt);

    // Assess
    await expect(outcome).rejects.toBeInstanceOf(TransientError);
    expect(virtual.nowMs() - start).toBeLessThan(Math.max(1, budgetMs));
  });
});

describe('component calls: reads are repeated, writes only when idempotent', () => {
  const endpoint: Endpoint = { type: 'service', namespace: 'demo', service: 'basic-pd', port: 2379 };

  /** A component port answering `answers` in order (then 200), recording each request's method. */
  function http(answers: { status: number; text: string }[]): ComponentHttp & { methods: string[] } {
    const methods: string[] = [];
    return {
      methods,
      send: async (_e: Endpoint, req: ComponentRequest) => {
        methods.push(req.method);
        return answers[methods.length - 1] ?? { status: 200, text: '{}' };
      },
    };
  }
  const overloaded = { status: 429, text: STATUS(429, 'TooManyRequests') };
  const internal = { status: 500, text: STATUS(500, 'InternalError') };
  const refused = { status: 503, text: 'error trying to reach service: dial tcp 10.0.0.1:2379: connect: connection refused' };
  const podEndpoint: Endpoint = { type: 'pod', namespace: 'demo', pod: 'basic-pd-0', subdomain: 'basic-pd-peer', port: 2379 };

  it.each([
    { name: 'a GET through a 429 and a 500', method: 'GET' as const, idempotent: false, answers: [overloaded, internal], sent: 3, ok: true },
    { name: 'an idempotent DELETE through a 500', method: 'DELETE' as const, idempotent: true, answers: [internal], sent: 2, ok: true },
    { name: 'a POST not marked idempotent is sent once', method: 'POST' as const, idempotent: false, answers: [internal], sent: 1, ok: false },
    { name: 'a PUT not marked idempotent is sent once', method: 'PUT' as const, idempotent: false, answers: [overloaded], sent: 1, ok: false },
    { name: 'a GET answered 404 is not repeated', method: 'GET' as const, idempotent: false, answers: [{ status: 404, text: 'no such member' }], sent: 1, ok: false },
    { name: 'a GET to a service with no endpoints is not repeated', method: 'GET' as const, idempotent: false, answers: [{ status: 503, text: 'no endpoints available for service "basic-pd"' }], sent: 1, ok: false },
    { name: 'a GET to a pod refusing connections is not repeated', method: 'GET' as const, idempotent: false, answers: [refused], sent: 1, ok: false, via: podEndpoint },
    { name: 'a GET to a service whose chosen pod refuses connections is repeated (the proxy picks an endpoint per request)', method: 'GET' as const, idempotent: false, answers: [refused, refused], sent: 3, ok: true },
    { name: 'a GET to a service none of whose pods listens gives up after two repeats', method: 'GET' as const, idempotent: false, answers: [refused, refused, refused, refused], sent: 3, ok: false },
    { name: 'the repeats after refusals do not use up those for other failures', method: 'GET' as const, idempotent: false, answers: [refused, refused, internal, internal], sent: 5, ok: true },
    { name: 'a POST to a service whose chosen pod refuses connections is sent once', method: 'POST' as const, idempotent: false, answers: [refused], sent: 1, ok: false },
    { name: 'a GET answered 503 by PD itself (no leader yet) is repeated', method: 'GET' as const, idempotent: false, answers: [{ status: 503, text: 'no leader' }], sent: 2, ok: true },
    { name: 'a GET answered 503 by PD after it waited for a leader in vain (v8.1.1 on) is not repeated', method: 'GET' as const, idempotent: false, answers: [{ status: 503, text: '[PD:apiutil:ErrRedirectNoLeader]redirect finds no leader' }], sent: 1, ok: false },
  ])('$name', async ({ method, idempotent, answers, sent, ok, via }: { method: ComponentRequest['method']; idempotent: boolean; answers: { status: number; text: string }[]; sent: number; ok: boolean; via?: Endpoint }) => {
    // Prepare
    const { clock } = sleepingClock();
    const port = http(answers);
    const caller = new ComponentCaller(port, { clock, random: () => 0.5 });

    // Act
    const outcome = caller.call(via ?? endpoint, { method, path: '/pd/api/v1/members' }, 'PD call', undefined, { idempotent });

    // Assess
    if (ok) await expect(outcome).resolves.toMatchObject({ status: 200 });
    else await expect(outcome).rejects.toThrow('PD call');
    expect(port.methods.length).toBe(sent);
  });

  it('refusals through a Service are repeated at once: no time passes and no jitter is drawn', async () => {
    // Prepare
    const { clock, virtual } = sleepingClock();
    const port = http([refused, refused]);
    let draws = 0;
    const caller = new ComponentCaller(port, { clock, random: () => (draws++, 0.5) });
    const start = virtual.nowMs();

    // Act
    const answer = await caller.call(endpoint, { method: 'GET', path: '/pd/api/v1/members' }, 'PD call');

    // Assess
    expect(answer.status).toBe(200);
    expect(port.methods.length).toBe(3);
    expect(virtual.nowMs() - start).toBe(0);
    expect(draws).toBe(0);
  });

  it('a failure a component answer did not cause (reset connection) is repeated', () => {
    expect(isRetryableComponentFailure(new TransientError('PD get members failed: fetch failed (ECONNRESET)'))).toBe(true);
  });
});
