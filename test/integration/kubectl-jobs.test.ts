/**
 * kubectl 1.34 against `tidb-reconciler sim serve` for batch/v1 Jobs: a Job applies, its pod is
 * created by the simulated Job controller, `kubectl get jobs` prints Kubernetes' columns
 * (STATUS, COMPLETIONS, DURATION, AGE), and `kubectl delete job` takes the pod with it.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type SimServe, startSimServe } from '../support/sim-serve.js';

let sim: SimServe;

beforeAll(async () => {
  sim = await startSimServe('200ms');
}, 90000);

afterAll(async () => {
  await sim.stop();
}, 30000);

const JOB = `
apiVersion: batch/v1
kind: Job
metadata: {name: backup-demo, namespace: default}
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers: [{name: backup, image: busybox:1.36}]
`;

async function until(check: () => Promise<boolean>, timeoutMs = 20000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('kubectl and Jobs', () => {
  it('a Job applies and kubectl get jobs prints STATUS, COMPLETIONS, DURATION, AGE', async () => {
    // Act
    const applied = await sim.ok(['apply', '-f', '-'], JOB);
    await until(async () => (await sim.ok(['get', 'pods', '-l', 'job-name=backup-demo', '-o', 'name'])).trim() !== '');
    const out = await sim.ok(['get', 'jobs']);

    // Assert
    expect(applied).toContain('job.batch/backup-demo created');
    const [head = '', row = ''] = out.split('\n');
    expect(head.trim().split(/\s+/)).toEqual(['NAME', 'STATUS', 'COMPLETIONS', 'DURATION', 'AGE']);
    expect(row.trim().split(/\s+/).slice(0, 3)).toEqual(['backup-demo', 'Running', '0/1']);
  }, 60000);

  it('the pod is named <job>-<5 chars> and labelled with the job name', async () => {
    // Act
    const names = await sim.ok(['get', 'pods', '-l', 'batch.kubernetes.io/job-name=backup-demo', '-o', 'jsonpath={.items[*].metadata.name}']);

    // Assert
    expect(names.trim()).toMatch(/^backup-demo-[a-z0-9]{5}$/);
  }, 60000);

  it('kubectl delete job removes its pod too', async () => {
    // Act
    await sim.ok(['delete', 'job', 'backup-demo']);
    await until(async () => (await sim.ok(['get', 'pods', '-l', 'job-name=backup-demo', '-o', 'name'])).trim() === '');

    // Assert
    expect((await sim.ok(['get', 'jobs', '-o', 'name'])).trim()).toBe('');
  }, 60000);
});
