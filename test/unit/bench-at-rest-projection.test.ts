/**
 * The fleet model BENCHMARKS.md's at-rest projection rests on (bench/at-rest-projection.ts): the
 * sweep's LIST in its first second, full steps when due, the event source's cap, health steps'
 * requests spread evenly.
 */
import { describe, expect, it } from '@jest/globals';

import { fleetRate, type FleetSchedule } from '../../bench/at-rest-projection.js';

const keys = (n: number): string[] => Array.from({ length: n }, (_, i) => `eks/ns/tc-${i}`);
const BASE: FleetSchedule = { keys: keys(3), windowS: 600, sweepIntervalS: 300, sweepSpreadS: 0, fullReadIntervalS: 0, fullReadSpreadS: 0, perFullStep: 10, listPages: 2, stepsPerS: 100, restPerClusterHour: 0, firstFullAtS: () => 0 };

describe('fleetRate', () => {
  it.each([
    // Main: every sweep steps every key at once: 2 sweeps × (3 steps × 10 + 2 pages).
    { name: 'every key in full at every sweep', change: {}, average: 64 / 600, peak: 32, peakSteps: 30, fullSteps: 6, maxBacklog: 3 },
    // 250 visible at once, 100 a second: 3 s to drain, each second capped.
    { name: 'the event source caps the steps a second', change: { keys: keys(250), windowS: 300 }, average: (2500 + 2) / 300, peak: 1002, peakSteps: 1000, fullSteps: 250, maxBacklog: 250 },
    // Read in full at 0, due 3 h later: none due in 10 minutes; only the LISTs and the health steps (3 × 360 / h).
    { name: 'no full read falls due', change: { fullReadIntervalS: 10_800, restPerClusterHour: 360 }, average: 4 / 600 + 0.3, peak: 2.3, peakSteps: 0.3, fullSteps: 0, maxBacklog: 0 },
    // Read in full 3 h before the window: due at the first sweep, then not again.
    { name: 'a full read falls due once', change: { fullReadIntervalS: 10_800, firstFullAtS: () => -10_800 }, average: (30 + 4) / 600, peak: 32, peakSteps: 30, fullSteps: 3, maxBacklog: 3 },
  ])('$name', ({ change, average, peak, peakSteps, fullSteps, maxBacklog }) => {
    // Act
    const rate = fleetRate({ ...BASE, ...change });
    // Assess
    expect(rate.averagePerS).toBeCloseTo(average, 6);
    expect(rate.peakPerS).toBeCloseTo(peak, 6);
    expect(rate.peakStepsPerS).toBeCloseTo(peakSteps, 6);
    expect(rate.fullSteps).toBe(fullSteps);
    expect(rate.maxBacklog).toBe(maxBacklog);
  });

  it('spreads a sweep\'s full steps over its spread: no second sees them all', () => {
    // Act
    const rate = fleetRate({ ...BASE, keys: keys(3000), sweepSpreadS: 300, windowS: 300 });
    // Assess: 3000 keys over 300 s, ~10 a second, never the 100 the cap allows.
    expect(rate.fullSteps).toBe(3000);
    expect(rate.maxBacklog).toBeLessThan(40);
    expect(rate.peakStepsPerS).toBeLessThan(400);
  });
});
