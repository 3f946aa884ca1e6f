/**
 * The TidbInitializer stories of test/scenarios run end to end — the controller on the step engine,
 * the world's Job controller and kubelet, the simulated mysql-client and TiDB — and show what they
 * are about: the upstream example's Job as v1 builds it, root's password set in the simulated TiDB
 * (a login without it refused) and `hello` created; a wrong password failing with "Access denied";
 * and the re-run v1 refuses completing.
 */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { parseScenario } from '../../lib/local/scenario/file.js';
import type { ScenarioReport } from '../../lib/local/scenario/report.js';
import { STORIES_DIR, runStoryAndInspect } from '../support/story.js';
import { itChecksOwnedStoriesPass } from '../support/story-owners.js';

const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'tidb-operator-examples', 'initialize', 'tidb-initializer.yaml');

type Obj = { metadata: { labels?: Record<string, string> }; spec: Record<string, unknown>; status?: Record<string, unknown> };
const objectOf = (r: ScenarioReport, key: string): Obj | undefined => (r.final as unknown as { objects: Record<string, Obj> }).objects[key];

describe('TidbInitializer stories', () => {
  it("initializer-example applies upstream's tidb-initializer.yaml unchanged (the fixture copy)", () => {
    const parsed = parseScenario(readFileSync(join(STORIES_DIR, 'initializer-example.yaml'), 'utf8'), 'initializer-example.yaml');
    if (!parsed.ok) throw new Error(parsed.error);
    const applied = parsed.scenario.timeline.flatMap((e) => (e.verb === 'apply' ? [e.manifest] : []));
    const { namespace: _ns, ...metadata } = (applied[0] as { metadata: Record<string, unknown> }).metadata;
    expect({ ...(applied[0] as object), metadata }).toEqual(parse(readFileSync(FIXTURE, 'utf8')));
  });

  it("initializer-example: upstream's initializer completes; root's password is the Secret's and `hello` exists; deleting the Job runs nothing again", async () => {
    const { report: r, seen } = await runStoryAndInspect('initializer-example.yaml', {
      inspect: async (stack) => {
        const sql = stack.sim.cluster('default', 'initialize-demo')?.sql;
        const events = stack.world.store.list('Event', 'default').filter((e) => (e.involvedObject as { kind?: string }).kind === 'TidbInitializer').map((e) => `${String(e.type)} ${String(e.reason)}`).sort();
        return { emptyLogin: sql?.login('root', '', '10.0.0.1')?.code, secretLogin: sql?.login('root', 's3cr3t-root', '10.0.0.1'), databases: sql?.databases(), events, jobs: stack.world.store.list('Job', 'default').length };
      },
    });
    expect(r.passed).toBe(true);
    expect(r.invariants.flatMap((i) => i.violations)).toEqual([]);
    expect(seen).toEqual({ emptyLogin: 1045, secretLogin: undefined, databases: ['hello'], events: ['Normal InitializeCompleted', 'Normal SuccessfulCreate'], jobs: 0 });
    const ti = objectOf(r, 'TidbInitializer/default/initialize-demo');
    expect(ti?.status).toMatchObject({ phase: 'Completed', succeeded: 1 });
    const cm = objectOf(r, 'ConfigMap/default/initialize-demo-tidb-initializer') as unknown as { data: Record<string, string> };
    expect(cm.data['init-sql']).toBe('create database hello;');
  }, 300_000);

  it('initializer-wrong-password: Access denied ten rounds fails the Job and the initializer; the re-run with the right Secret completes', async () => {
    const { report: r, seen } = await runStoryAndInspect('initializer-wrong-password.yaml', {
      inspect: async (stack) => {
        const logs = [...stack.sim.initializers.processes.values()].map((p) => p.log);
        return { deniedRuns: logs.filter((l) => l.filter((x) => x.includes('Access denied')).length === 20).length, databases: stack.sim.cluster('default', 'basic')?.sql.databases(), root: stack.sim.cluster('default', 'basic')?.sql.passwordOf('root') };
      },
    });
    expect(r.passed).toBe(true);
    expect(r.invariants.flatMap((i) => i.violations)).toEqual([]);
    expect(seen).toEqual({ deniedRuns: 1, databases: ['app1'], root: 'first-password' });
    expect(objectOf(r, 'TidbInitializer/default/again')?.status).toMatchObject({ phase: 'Completed' });
  }, 300_000);
});

itChecksOwnedStoriesPass('scenarios-initializer');
