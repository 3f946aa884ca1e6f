/**
 * The simulated TiDB's `/schema` endpoints answer as TiDB's HTTP API does, and list the user
 * database only while the cluster's dataset holds data — what the Restore controller's
 * target-not-empty check reads through `TidbSchemaClient`.
 */
import { describe, expect, it } from '@jest/globals';
import { answerSchema } from '../../lib/sim/tidb/schema-api.js';

const get = (path: string) => ({ method: 'GET', path, query: {}, headers: {}, body: '' }) as unknown as Parameters<typeof answerSchema>[0];
const names = (body: string, field: string): string[] => (JSON.parse(body) as Record<string, { O: string }>[]).map((x) => x[field]?.O ?? '');

describe('simulated TiDB /schema', () => {
  it.each([
    { name: 'an empty cluster lists only the system databases', hasData: false, dbs: ['INFORMATION_SCHEMA', 'METRICS_SCHEMA', 'PERFORMANCE_SCHEMA', 'mysql', 'sys'] },
    { name: 'a cluster holding data also lists the user database', hasData: true, dbs: ['INFORMATION_SCHEMA', 'METRICS_SCHEMA', 'PERFORMANCE_SCHEMA', 'mysql', 'sys', 'app'] },
  ])('$name', ({ hasData, dbs }) => {
    // Act
    const answer = answerSchema(get('/schema'), hasData);

    // Assert
    expect(answer?.status).toBe(200);
    expect(names(answer?.body ?? '[]', 'db_name')).toEqual(dbs);
  });

  it.each([
    { name: 'the user database lists its table', path: '/schema/app', hasData: true, status: 200, tables: ['t'] },
    { name: 'an unknown database is 400 with TiDB\'s error', path: '/schema/app', hasData: false, status: 400, tables: undefined },
    { name: 'a system database lists no user table', path: '/schema/mysql', hasData: true, status: 200, tables: [] },
  ])('$name', ({ path, hasData, status, tables }) => {
    // Act
    const answer = answerSchema(get(path), hasData);

    // Assert
    expect(answer?.status).toBe(status);
    if (tables) expect(names(answer?.body ?? '[]', 'name')).toEqual(tables);
    else expect(answer?.body).toBe("[schema:1049]Unknown database 'app'");
  });

  it('other paths and methods are not its', () => {
    expect(answerSchema(get('/status'), true)).toBeUndefined();
    expect(answerSchema({ ...get('/schema'), method: 'POST' }, true)).toBeUndefined();
  });
});
