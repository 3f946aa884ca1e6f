import { describe, expect, it } from '@jest/globals';
import { HandlerClock } from '../../lib/local/handler-clock.js';
import { mortalRuntime } from '../../lib/local/mortal.js';
import { VirtualClock } from '../../lib/platform/clock.js';
import type { ClusterClients, DeadlineClients } from '../../lib/wiring/clients.js';
import { stepPorts } from '../../lib/wiring/ports.js';
import { fakeClients, fakeRuntime } from './functions/runtime-fakes.js';

describe('a step’s in-call retries end with its work budget', () => {
  it('the clients get the invocation deadline for calls and the deadline less the safety margin for retries', () => {
    // Prepare
    const { runtime, kube } = fakeRuntime();
    const inner = fakeClients(kube);
    const asked: (number | undefined)[][] = [];
    const clients: DeadlineClients = {
      ...inner,
      withDeadline: (deadlineAtMs: number, retryUntilMs?: number): ClusterClients => (asked.push([deadlineAtMs, retryUntilMs]), inner),
    };
    const deadlineAtMs = runtime.clock.nowMs() + 60_000;

    // Act
    stepPorts({ ...runtime, clients }, deadlineAtMs);

    // Assess
    expect(asked).toEqual([[deadlineAtMs, deadlineAtMs - runtime.config.step.safetyMarginMs]]);
  });
});

describe('the simulated handlers’ clock: a sleep lets virtual time pass', () => {
  it('concurrent sleepers wake in time order, and what falls due meanwhile fires at its time', async () => {
    // Prepare
    const virtual = new VirtualClock();
    const t0 = virtual.nowMs();
    const clock = new HandlerClock(virtual, () => Promise.resolve());
    const seen: string[] = [];
    const passing: boolean[] = [];
    clock.onTimePassing = (p) => passing.push(p);
    virtual.setTimer(() => seen.push(`world at ${virtual.nowMs() - t0}`), 200);

    // Act
    await Promise.all([
      clock.sleep(300).then(() => seen.push(`slow woke at ${virtual.nowMs() - t0}`)),
      clock.sleep(100).then(() => seen.push(`fast woke at ${virtual.nowMs() - t0}`)),
    ]);

    // Assess
    expect(seen).toEqual(['fast woke at 100', 'world at 200', 'slow woke at 300']);
    expect(virtual.nowMs() - t0).toBe(300);
    expect(passing).toEqual([true, false]);
  });

  it('a timer set through it is the virtual clock’s and fires only when time is moved', async () => {
    // Prepare
    const virtual = new VirtualClock();
    const clock = new HandlerClock(virtual, () => Promise.resolve());
    let fired = false;

    // Act
    clock.setTimer(() => (fired = true), 50);
    const before = fired;
    await virtual.advance(50);

    // Assess
    expect(before).toBe(false);
    expect(fired).toBe(true);
  });

  it('a sleep started by an invocation that is killed meanwhile never wakes: a dead Lambda does not go on retrying', async () => {
    // Prepare
    const virtual = new VirtualClock();
    const clock = new HandlerClock(virtual, () => Promise.resolve());
    const dying = mortalRuntime(fakeRuntime().runtime);
    const living = mortalRuntime(fakeRuntime().runtime);
    const woke: string[] = [];

    // Act
    void dying.run(() => clock.sleep(100).then(() => woke.push('dying')));
    const alive = living.run(() => clock.sleep(200).then(() => woke.push('living')));
    dying.kill();
    await alive;
    await virtual.advance(1000);

    // Assess
    expect(woke).toEqual(['living']);
  });
});
