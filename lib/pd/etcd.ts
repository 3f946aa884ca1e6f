/**
 * Reads of PD's embedded etcd through its JSON gateway on the client port (`POST /v3/kv/range`,
 * PD's `enable-grpc-gateway`, default on; tikv/pd tests/server/api/etcd_api_test.go), as TiDB
 * Operator v1's `pkg/pdapi/pdetcd.go` `Get(key, prefix)` reads them over gRPC: keys and values
 * cross the gateway as base64, a prefix read is `range_end` = the prefix with its last byte raised
 * (clientv3.GetPrefixRangeEnd). Reached through the `<tc>-pd:2379` service by the same
 * `ComponentCaller` as PD's HTTP API (its timeout, deadline and in-call retry: a range is a read).
 */
import { type ComponentCaller } from '../components/caller.js';
import { asArray, asRecord } from '../components/json.js';
import { TerminalError } from '../platform/errors.js';
import { PD_CLIENT_PORT, type PdTarget } from './client.js';

/** One key and its value, as bytes. */
export type EtcdEntry = { readonly key: string; readonly value: Buffer };

/** The etcd reads of one TidbCluster's PD. */
export interface PdEtcdPort {
  /** The value at `key`, or with `prefix` every key starting with it (sorted by key, as etcd returns them). */
  get(key: string, prefix: boolean): Promise<EtcdEntry[]>;
}

/** The `range_end` that turns `key` into a prefix (clientv3.GetPrefixRangeEnd). */
export function prefixEnd(key: Buffer): Buffer {
  for (let i = key.length - 1; i >= 0; i--) {
    const byte = key[i] ?? 0xff;
    if (byte < 0xff) return Buffer.concat([key.subarray(0, i), Buffer.from([byte + 1])]);
  }
  return Buffer.from([0]);
}

/** `PdEtcdPort` over PD's gateway. */
export class PdEtcdClient implements PdEtcdPort {
  constructor(
    private readonly caller: ComponentCaller,
    readonly target: PdTarget,
  ) {}

  async get(key: string, prefix: boolean): Promise<EtcdEntry[]> {
    const raw = Buffer.from(key);
    const body = { key: raw.toString('base64'), ...(prefix ? { range_end: prefixEnd(raw).toString('base64') } : {}) };
    const endpoint = { type: 'service' as const, namespace: this.target.namespace, service: `${this.target.tcName}-pd`, port: PD_CLIENT_PORT, ...(this.target.scheme === 'https' ? { scheme: 'https' as const } : {}) };
    const what = `PD etcd range ${key}${prefix ? '*' : ''}`;
    // A range is a read: repeating it on a transient failure is harmless.
    const answer = await this.caller.json(endpoint, { method: 'POST', path: '/v3/kv/range', body: JSON.stringify(body) }, what, { idempotent: true });
    return toEntries(answer, what);
  }
}

/** The `kvs` of a RangeResponse (absent when nothing matched; an empty value has no `value` field). */
export function toEntries(answer: unknown, what: string): EtcdEntry[] {
  const kvs = asRecord(answer)['kvs'];
  if (kvs === undefined) return [];
  return asArray(kvs).map((kv) => {
    const record = asRecord(kv);
    const key = record['key'];
    const value = record['value'] ?? '';
    if (typeof key !== 'string' || typeof value !== 'string') throw new TerminalError(`${what}: a key or value is not base64 text`);
    return { key: Buffer.from(key, 'base64').toString('utf8'), value: Buffer.from(value, 'base64') };
  });
}
