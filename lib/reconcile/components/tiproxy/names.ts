/**
 * TiProxy's own names and keys, as TiDB Operator v1.6 gives them (docs/reference/tiproxy.md): the
 * StatefulSet and ConfigMap `<tc>-tiproxy`, the client Service `<tc>-tiproxy` and the headless
 * `<tc>-tiproxy-peer`, its ports, its min-ready annotation and how soon its rules look again.
 */

import type { TidbCluster, TidbClusterStatus } from '../../../model/kube.js';
import type { RuleInput } from '../../engine/rule.js';

/** `status.tiproxy`. */
export type TiproxyStatus = NonNullable<TidbClusterStatus['tiproxy']>;
/** One `status.tiproxy.members` entry. */
export type TiproxyMember = NonNullable<TiproxyStatus['members']>[string];

/** TiProxy's MySQL port (v1's `DefaultTiProxyServerPort`). */
export const TIPROXY_SQL_PORT = 6000;
/** TiProxy's HTTP API and status port (`DefaultTiProxyStatusPort`): health, metrics, config. */
export const TIPROXY_API_PORT = 3080;
/** TiProxy's peer port (the headless Service's `tiproxy-peer`). */
export const TIPROXY_PEER_PORT = 3081;

/** How soon a TiProxy rule that made progress, or waits for a member, wants to look again. */
export const TIPROXY_RETRY_MS = 5_000;

/** As TiDB Operator's TiProxy upgrader: the TidbCluster annotation with the seconds an updated pod must be Ready (its own key). */
export const TIPROXY_MIN_READY_SECONDS_ANNOTATION = 'tiproxy.pingcap.com/tiproxy-min-ready-seconds';

/** The StatefulSet, ConfigMap and client Service name: `<tc>-tiproxy`. */
export const tiproxySetName = (tc: TidbCluster): string => `${tc.metadata.name ?? ''}-tiproxy`;

/** The headless peer Service name: `<tc>-tiproxy-peer`. */
export const tiproxyPeerServiceName = (tc: TidbCluster): string => `${tc.metadata.name ?? ''}-tiproxy-peer`;

/** The cluster's `status.tiproxy` as the rules before this one left it (empty when there is none). */
export const tiproxyStatusOf = (input: RuleInput): TiproxyStatus => input.status.tiproxy ?? {};
