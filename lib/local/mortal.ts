/**
 * A Lambda invocation that dies mid-step, for the `step-crash` fault: the runtime's remote ends are
 * wrapped so that, once `kill()` is called, every pending and future call on them never settles —
 * exactly what a timed-out or OOM-killed invocation looks like from outside: the writes it made stay
 * made, its lease is never released, its message is never deleted. Code run through `run` belongs
 * to the invocation (an async context), so a sleep it started (an in-call retry's backoff) never
 * wakes once the invocation is dead: a killed Lambda's process does not go on retrying.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

import type { Runtime } from '../wiring/ports.js';

/**
 * A runtime that can be killed, whether it was, a promise that settles when it is, and `run`, which
 * runs the invocation's code in its async context (see `invocationDeathCheck`).
 */
export type MortalRuntime = {
  readonly runtime: Runtime;
  kill(): void;
  readonly dead: boolean;
  readonly died: Promise<'crashed'>;
  run<T>(fn: () => T): T;
};

const invocation = new AsyncLocalStorage<{ readonly isDead: () => boolean }>();

/**
 * For the code calling this, a check of whether its invocation has been killed (by then); code run
 * outside any invocation is never dead. Capture it where the work starts: a timer's callback runs in
 * whoever fired it.
 */
export function invocationDeathCheck(): () => boolean {
  return invocation.getStore()?.isDead ?? (() => false);
}

const NEVER = new Promise<never>(() => undefined);

/** Wraps the remote ends of `runtime` (Kubernetes/PD clients, state, queue, timers). */
export function mortalRuntime(runtime: Runtime): MortalRuntime {
  let dead = false;
  let announce: (value: 'crashed') => void = () => undefined;
  const died = new Promise<'crashed'>((resolve) => (announce = resolve));
  const wrap = <T extends object>(target: T): T => deadAware(target, () => dead);
  return {
    runtime: { ...runtime, clients: wrap(runtime.clients), state: wrap(runtime.state), queue: wrap(runtime.queue), timers: wrap(runtime.timers), ...(runtime.restReads ? { restReads: wrap(runtime.restReads) } : {}), ...(runtime.apiBudget ? { apiBudget: wrap(runtime.apiBudget) } : {}) },
    died,
    kill: () => {
      dead = true;
      announce('crashed');
    },
    get dead() {
      return dead;
    },
    run: (fn) => invocation.run({ isDead: () => dead }, fn),
  };
}

/**
 * A proxy whose methods call through while alive; once dead, calls never settle, and promises that
 * settle after death never hand their result on. Objects returned by methods (e.g. clients bound to
 * a deadline) and objects held in properties (e.g. `clients.kube`) are wrapped the same way. Methods
 * run with the real object as `this`.
 */
function deadAware<T extends object>(target: T, isDead: () => boolean): T {
  return new Proxy(target, {
    get(t, prop, receiver) {
      const value = Reflect.get(t, prop, receiver) as unknown;
      // Ports hang off properties too (`clients.kube`): they die with the invocation as well.
      if (value !== null && typeof value === 'object' && !(value instanceof Promise)) return deadAware(value, isDead);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (isDead()) return NEVER;
        const result = (value as (...a: unknown[]) => unknown).apply(t, args);
        if (result instanceof Promise) return result.then((v) => (isDead() ? NEVER : v), (e: unknown) => (isDead() ? NEVER : Promise.reject(e)));
        if (result !== null && typeof result === 'object') return deadAware(result, isDead);
        return result;
      };
    },
  });
}
