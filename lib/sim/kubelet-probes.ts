/**
 * The kubelet's readiness probing of one container, after `pkg/kubelet/prober/worker.go`: a new
 * container starts with the result Failure (`initialValue` of a readiness worker), no probe runs
 * before `initialDelaySeconds` have passed since it started, then one runs every `periodSeconds`;
 * the result the kubelet reports changes only after `successThreshold` successes in a row (to
 * ready) or `failureThreshold` failures in a row (to unready). Fields left out take the API
 * server's defaults (`pkg/apis/core/v1/defaults.go`, SetDefaults_Probe): period 10 s, success 1,
 * failure 3, initial delay 0. Probes here run at `startedAt + initialDelay + k × period`: the real
 * worker's ticker has an arbitrary phase; this one starts when the delay ends, so it is
 * deterministic and never earlier than the real first probe could be by more than a period.
 */
import type { KubeObject } from './object.js';

/** A container's readiness probe timing, with the API server's defaults filled in. */
export type ReadinessProbeTiming = {
  readonly initialDelaySeconds: number;
  readonly periodSeconds: number;
  readonly successThreshold: number;
  readonly failureThreshold: number;
};

/** SetDefaults_Probe (pkg/apis/core/v1/defaults.go): what an unset probe field means. */
export const PROBE_DEFAULTS = { timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 } as const;

type ProbeFields = { initialDelaySeconds?: number; periodSeconds?: number; successThreshold?: number; failureThreshold?: number };

const positive = (v: number | undefined, fallback: number): number => (typeof v === 'number' && v > 0 ? v : fallback);

/** The timing of the readiness probe of the pod's container `name`, or undefined when it declares none. */
export function readinessProbeTiming(pod: KubeObject, name: string): ReadinessProbeTiming | undefined {
  const containers = (pod.spec?.containers ?? []) as { name?: string; readinessProbe?: ProbeFields | null }[];
  const probe = containers.find((c) => c.name === name)?.readinessProbe;
  if (probe === undefined || probe === null) return undefined;
  return {
    initialDelaySeconds: typeof probe.initialDelaySeconds === 'number' && probe.initialDelaySeconds > 0 ? probe.initialDelaySeconds : 0,
    periodSeconds: positive(probe.periodSeconds, PROBE_DEFAULTS.periodSeconds),
    successThreshold: positive(probe.successThreshold, PROBE_DEFAULTS.successThreshold),
    failureThreshold: positive(probe.failureThreshold, PROBE_DEFAULTS.failureThreshold),
  };
}

/**
 * The probe worker of one container instance. Guarantees: `ready` changes only at a probe time
 * and only after the threshold's run of equal results. The process tells the kubelet whenever its
 * readiness changes, so between two calls of `probeDue` it answered what it answered at the
 * earlier one: probes due before `nowMs` get that earlier answer, a probe due at `nowMs` the
 * current one.
 */
export class ReadinessProber {
  private readyNow = false;
  private lastResult: boolean | undefined;
  private resultRun = 0;
  private nextAtMs: number;
  private seen = false;
  private failures = 0;

  constructor(
    private readonly timing: ReadinessProbeTiming,
    startedAtMs: number,
  ) {
    this.nextAtMs = startedAtMs + timing.initialDelaySeconds * 1000;
  }

  /** The result the kubelet reports: true once the container passed its success threshold. */
  get ready(): boolean {
    return this.readyNow;
  }

  /**
   * Runs the probes due by `nowMs`, the process answering `succeedsNow` from now on; returns when
   * the next probe that can change `ready` is due, or undefined while nothing can change it
   * until the process's readiness does.
   */
  probeDue(nowMs: number, succeedsNow: boolean): number | undefined {
    const periodMs = this.timing.periodSeconds * 1000;
    // Probes whose result equals the reported state change nothing: skip them in one jump.
    if (this.nextAtMs < nowMs && this.seen === this.readyNow && this.lastResult === this.seen) {
      const skipped = Math.floor((nowMs - this.nextAtMs) / periodMs);
      if (!this.seen) this.failures += skipped;
      this.nextAtMs += skipped * periodMs;
    }
    while (this.nextAtMs <= nowMs) {
      this.record(this.nextAtMs < nowMs ? this.seen : succeedsNow);
      this.nextAtMs += periodMs;
    }
    this.seen = succeedsNow;
    const settled = this.lastResult === succeedsNow && this.readyNow === succeedsNow;
    return settled ? undefined : this.nextAtMs;
  }

  /** The probes that failed since the last call (each one an `Unhealthy` Event of the kubelet), and resets the count. */
  takeFailures(): number {
    const n = this.failures;
    this.failures = 0;
    return n;
  }

  private record(success: boolean): void {
    if (!success) this.failures++;
    this.resultRun = this.lastResult === success ? this.resultRun + 1 : 1;
    this.lastResult = success;
    const threshold = success ? this.timing.successThreshold : this.timing.failureThreshold;
    if (this.resultRun >= threshold) this.readyNow = success;
  }
}
