/**
 * The EKS access-entries adapter against a local HTTP server speaking the EKS REST API
 * (DescribeAccessEntry: GET /clusters/{name}/access-entries/{principalArn}; ListAccessEntries:
 * GET /clusters/{name}/access-entries, paged by nextToken), through the AWS SDK's own client.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { EKSClient } from '@aws-sdk/client-eks';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EksAccessEntries } from '../../lib/eks/client.js';
import { TerminalError } from '../../lib/platform/errors.js';

const ROLE = 'arn:aws:iam::111122223333:role/ops/dba';
const seen: string[] = [];
let server: Server;
let entries: EksAccessEntries;
let denied: EksAccessEntries;

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://eks');
    seen.push(`${req.method} ${url.pathname}${url.search}`);
    const json = (status: number, body: unknown, type?: string) => res.writeHead(status, { 'Content-Type': 'application/json', ...(type ? { 'x-amzn-ErrorType': type } : {}) }).end(JSON.stringify(body));
    if (url.pathname.startsWith('/clusters/locked/')) return json(403, { message: 'User is not authorized to perform: eks:DescribeAccessEntry' }, 'AccessDeniedException');
    const one = /^\/clusters\/prod\/access-entries\/(.+)$/.exec(url.pathname);
    if (one) {
      const arn = decodeURIComponent(one[1] ?? '');
      if (arn !== ROLE) return json(404, { message: `The specified access entry resource is not found: ${arn}` }, 'ResourceNotFoundException');
      return json(200, { accessEntry: { clusterName: 'prod', principalArn: ROLE, kubernetesGroups: ['dbas'], username: 'arn:aws:sts::111122223333:assumed-role/dba/{{SessionName}}', type: 'STANDARD' } });
    }
    if (url.pathname === '/clusters/prod/access-entries') {
      return url.searchParams.get('nextToken') === 'p2' ? json(200, { accessEntries: [ROLE] }) : json(200, { accessEntries: ['arn:aws:iam::111122223333:role/other'], nextToken: 'p2' });
    }
    json(404, { message: 'no route' }, 'ResourceNotFoundException');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = new EKSClient({ endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, region: 'eu-west-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' }, maxAttempts: 1 });
  entries = new EksAccessEntries('prod', 'eu-west-1', client);
  denied = new EksAccessEntries('locked', 'eu-west-1', client);
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('EKS access entries', () => {
  it('describes the entry of a principal: user name template, groups and type', async () => {
    expect(await entries.describe(ROLE)).toEqual({ principalArn: ROLE, username: 'arn:aws:sts::111122223333:assumed-role/dba/{{SessionName}}', kubernetesGroups: ['dbas'], type: 'STANDARD' });
  });

  it('a principal without an entry is undefined, not an error', async () => {
    expect(await entries.describe('arn:aws:iam::111122223333:role/dba')).toBeUndefined();
  });

  it('lists every principal across pages', async () => {
    expect(await entries.listPrincipalArns()).toEqual(['arn:aws:iam::111122223333:role/other', ROLE]);
    expect(seen.filter((s) => s.startsWith('GET /clusters/prod/access-entries?') || s === 'GET /clusters/prod/access-entries')).toHaveLength(2);
  });

  it('a missing permission is a terminal error naming the call', async () => {
    const err = await denied.describe(ROLE).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TerminalError);
    expect((err as Error).message).toContain(`eks:DescribeAccessEntry ${ROLE} failed: AccessDeniedException`);
  });
});
