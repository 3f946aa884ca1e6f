import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ComponentCaller } from '../../lib/components/caller.js';
import { DirectHttp, type Endpoint } from '../../lib/components/transport.js';
import { NotFoundError, TransientError } from '../../lib/platform/errors.js';
import { PdClient } from '../../lib/pd/client.js';

/** Direct mode with the cluster DNS name swapped for loopback, which is all a test can resolve. */
class LoopbackHttp extends DirectHttp {
  constructor(private readonly url: string) {
    super();
  }
  override baseUrl(_endpoint: Endpoint): string {
    return this.url;
  }
}

let server: Server;
let seen: string[];
let client: PdClient;
beforeEach(async () => {
  seen = [];
  server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    if (req.url === '/pd/api/v1/members') res.writeHead(200).end('{"members":[{"name":"pd-0","member_id":11120000000000000001}]}');
    else if (req.url === '/pd/api/v1/health') return; // never answers
    else res.writeHead(404).end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  client = new PdClient(new ComponentCaller(new LoopbackHttp(`http://127.0.0.1:${port}`), { timeoutMs: 200 }), { namespace: 'demo', tcName: 'basic' });
});
afterEach(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('direct mode (a Lambda inside the VPC)', () => {
  it('reads PD without the API server and keeps ids exact', async () => {
    const { members } = await client.getMembers();
    expect(members[0]?.memberId).toBe('11120000000000000001');
    expect(seen).toEqual(['GET /pd/api/v1/members']);
  });

  it.each([
    { name: 'a 404 is NotFoundError', act: (c: PdClient) => c.deleteStore('1'), type: NotFoundError },
    { name: 'no answer within the timeout is TransientError', act: (c: PdClient) => c.getHealth(), type: TransientError },
  ])('$name', async ({ act, type }) => {
    await expect(act(client)).rejects.toBeInstanceOf(type);
  });
});
