/**
 * Which store a TiKV or TiFlash pod runs, as the reconciler knows it: the `tidb.pingcap.com/store-id`
 * label written on the pod once its store was seen (TiDB Operator's `UpdateMetaInfo`). A Tombstone is
 * matched to a pod only by this id, never by pod name alone — a new store of the same pod name must
 * not be mistaken for the old one.
 */

import { META_KEYS } from '../cluster/meta-info.js';
import type { MemberInput } from './component.js';

/** The store id recorded for `podName`, or undefined when none is. */
export function storeIdOfPod(input: MemberInput, podName: string): string | undefined {
  return input.scope.pod(podName)?.metadata?.labels?.[META_KEYS.storeId];
}
