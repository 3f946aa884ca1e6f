/**
 * A local HTTP server on 127.0.0.1: listening on a free port, and closed without waiting for
 * keep-alive sockets — what the local stack's stand-ins for AWS (dynalite, the IAM fronts) share.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A listening loopback server: its `http://127.0.0.1:<port>` endpoint, and how to stop it. */
export type LoopbackServer = { readonly endpoint: string; close(): Promise<void> };

/** Listens on 127.0.0.1 (a free port); `close` drops open connections, then stops the server. */
export async function listenOnLoopback(server: Server): Promise<LoopbackServer> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      // Keep-alive sockets would otherwise hold the server open until they time out.
      server.closeAllConnections();
      return new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
    },
  };
}
