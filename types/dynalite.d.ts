/**
 * Types for dynalite 4 (an in-process DynamoDB server written in JavaScript; the package ships no
 * types). Only the factory the test helpers use is declared: it returns an unstarted HTTP server
 * whose `close` also closes the in-memory store.
 */
declare module 'dynalite' {
  import type { Server } from 'node:http';

  /** Options of `dynalite()`; the `*Ms` values are how long a table stays CREATING/DELETING/UPDATING. */
  export interface DynaliteOptions {
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
    maxItemSizeKb?: number;
    /** A LevelDB directory; in memory when omitted. */
    path?: string;
    verbose?: boolean;
    debug?: boolean;
  }

  /** Creates a dynalite server; call `listen` to start it. */
  export default function dynalite(options?: DynaliteOptions): Server;
}
