/**
 * `config.apiRequestsPerSecond` (docs/SCENARIOS.md): a scenario sets its EKS cluster's API budget rate
 * as `API_BUDGET_REQUESTS_PER_SECOND` does (docs/adr/0028), and a bad value is refused naming the field.
 */
import { describe, expect, it } from '@jest/globals';

import { parseScenario } from '../../lib/local/scenario/file.js';

const file = (rate: string): string => `name: t\nconfig: {apiRequestsPerSecond: ${rate}}\ncluster:\n  metadata: {name: basic, namespace: demo}\n  spec:\n    pd: {replicas: 3}\ntimeline:\n  - advance: 1m\n`;

describe('a scenario sets the API budget rate (config.apiRequestsPerSecond)', () => {
  it.each([
    { name: 'one a second', rate: '1', want: 1 },
    { name: 'off', rate: '0', want: 0 },
  ])('$name', ({ rate, want }) => {
    const result = parseScenario(file(rate), 's.yaml');
    expect(result.ok && result.scenario.config.apiRequestsPerSecond).toBe(want);
  });

  it.each([
    { name: 'a negative rate', rate: '-1' },
    { name: 'a fraction', rate: '0.5' },
    { name: 'a word', rate: 'fast' },
  ])('refuses $name, naming the field', ({ rate }) => {
    const result = parseScenario(file(rate), 's.yaml');
    expect(result.ok ? '' : result.error).toMatch(/^s\.yaml:2: config\.apiRequestsPerSecond: /);
  });

  it('absent: the default rate', () => {
    const result = parseScenario(file('1').replace('config: {apiRequestsPerSecond: 1}\n', ''), 's.yaml');
    expect(result.ok && result.scenario.config.apiRequestsPerSecond).toBeUndefined();
  });
});
