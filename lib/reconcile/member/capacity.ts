/**
 * The `CAPACITY` a store process is started with, as TiDB Operator v1's `TiKVCapacity` (used by TiKV
 * and TiFlash): from `limits.storage`, whole GiB as `<n>GB`, else MiB as `<n>MB`; `0` (no limit)
 * when unset or not a quantity.
 */

import { quantityValue } from '../cluster/validate.js';

const GIB = 2 ** 30;
const MIB = 2 ** 20;

/** The capacity argument for `limits` (see the module comment). */
export function storeCapacityArg(limits: Readonly<Record<string, unknown>> | undefined): string {
  const bytes = quantityValue(limits?.storage);
  if (bytes === undefined || !Number.isInteger(bytes)) return '0';
  return bytes % GIB === 0 ? `${bytes / GIB}GB` : `${Math.floor(bytes / MIB)}MB`;
}
