/**
 * A Lambda invocation that dies mid-step, for the `step-crash` fault: the runtime's remote ends are
 * wrapped so that, once `kill()` is called, every pending and future call on them never settles —
 * exactly what a timed-out or OOM-killed invocation looks like from outside: the writes it made stay
 * made, its lease is never released, its message is never deleted.
 */
import type { Runtime } from '../wiring/ports.js';

/** A runtime that can be killed, and whether it was. */
export type MortalRuntime = { readonly runtime: Runtime; kill(): void; readonly dead: boolean };

const NEVER = new Promise<never>(() => undefined);

/** Wraps the remote ends of `runtime` (Kubernetes/PD clients, state, queue, timers). */
export function mortalRuntime(runtime: Runtime): MortalRuntime {
  let dead = false;
  const wrap = <T extends object>(target: T): T => deadAware(target, () => dead);
  return {
    runtime: { ...runtime, clients: wrap(runtime.clients), state: wrap(runtime.state), queue: wrap(runtime.queue), timers: wrap(runtime.timers) },
    kill: () => {
      dead = true;
    },
    get dead() {
      return dead;
    },
  };
}

/**
 * A proxy whose methods call through while alive; once dead, calls never settle, and promises that
 * settle after death never hand their result on. Objects returned by methods (e.g. clients bound to
 * a deadline) are wrapped the same way. Methods run with the real object as `this`.
 */
function deadAware<T extends object>(target: T, isDead: () => boolean): T {
  return new Proxy(target, {
    get(t, prop, receiver) {
      const value = Reflect.get(t, prop, receiver) as unknown;
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
