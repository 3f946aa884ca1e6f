/**
 * The per-pod status APIs of TiDB, TiKV and TiCDC as the step engine uses them (reference
 * TiDB Operator v1's `pkg/controller/tidb_control.go` and its TiKV/TiFlash/TiCDC controls). Each addresses one pod by name; the adapters reach it through the API
 * server's pod proxy (or directly) with the shared timeout and error rules of `caller.ts`.
 */

/** What a TiDB server's `/status` says about itself. */
export type TidbStatus = { connections: number; version: string; gitHash: string };

/**
 * A TiDB health probe's verdict. As TiDB Operator, healthy means `/status` answered below 400; an
 * answer ≥ 400 or a timeout is unhealthy, with `detail` saying why.
 */
export type TidbProbe = { healthy: true } | { healthy: false; detail: string };

/** The TiDB status port (10080) of one pod. */
export interface TidbStatusPort {
  /** GET /status, parsed. */
  getStatus(podName: string): Promise<TidbStatus>;
  /**
   * GET /status as a health probe. Only a failure to reach the API server itself (not the pod) is
   * thrown (`TransientError`), so an outage of our own path is never counted as a TiDB failure.
   */
  probe(podName: string): Promise<TidbProbe>;
  /** POST /labels with the server labels (TiDB ≥ 6.3). */
  setLabels(podName: string, labels: Readonly<Record<string, string>>): Promise<void>;
  /** POST /upgrade/start: the cluster enters smooth-upgrade mode (DDL paused), TiDB ≥ 7.1. */
  startUpgrade(podName: string): Promise<void>;
  /** POST /upgrade/finish: the cluster leaves smooth-upgrade mode (DDL resumes). */
  finishUpgrade(podName: string): Promise<void>;
}

/** The TiKV status port (20180) of one pod. */
export interface TikvStatusPort {
  /** GET /metrics: the Prometheus text. */
  getMetrics(podName: string): Promise<string>;
  /** The store's leader count: `tikv_raftstore_region_count{type="leader"}` from /metrics. */
  getLeaderCount(podName: string): Promise<number>;
}

/** A TiCDC capture as `/status` and `/api/v1/captures` describe it. */
export type TicdcCapture = { id: string; isOwner: boolean; address: string; version: string };

/** The TiCDC port (8301) of one pod. */
export interface TicdcPort {
  /** GET /status: this capture's id, version and whether it is the owner. */
  getStatus(podName: string): Promise<TicdcCapture>;
  /** GET /api/v1/captures: every capture of the changefeed cluster, as this pod sees it. */
  getCaptures(podName: string): Promise<TicdcCapture[]>;
  /** POST /api/v1/owner/resign on the owner's pod. */
  resignOwner(podName: string): Promise<void>;
  /** PUT /api/v1/captures/drain `{capture_id}` (sent to the owner): the tables still to move. */
  drainCapture(ownerPodName: string, captureId: string): Promise<number>;
  /** GET /api/v1/health on the owner: true below 400, false for any other answer; no answer throws. */
  isHealthy(ownerPodName: string): Promise<boolean>;
}

/** One Pump node as tidb-binlog's registry describes it. */
export type PumpNode = { nodeId: string; host: string; state: string };

/** The Pump port (8250) of one pod. */
export interface PumpPort {
  /** GET /status on `podName`: every Pump node of the cluster as the binlog registry lists it. */
  getNodes(podName: string): Promise<PumpNode[]>;
  /** PUT /state/<nodeId>/close on the node's own pod: it flushes and goes offline; repeating it is harmless. */
  offline(nodeId: string): Promise<void>;
}

/** The TiFlash proxy status port (20292) of one pod. */
export interface TiflashStatusPort {
  /** GET /tiflash/store-status: `Idle`, `Ready`, `Running`, `Stopping` or `Terminated`, as plain text. */
  getStoreStatus(podName: string): Promise<string>;
}

/** A TiProxy's answer to `GET /api/debug/health`: 200 is healthy (`info`: the body), anything else is not (`detail`: status and reason). */
export type TiproxyHealth = { healthy: true; info: string } | { healthy: false; detail: string };

/** The TiProxy API port (3080) of one pod. */
export interface TiproxyPort {
  /** GET /api/debug/health (what `tiproxyctl health` asks); an unreachable pod is thrown, an answer never is. */
  health(podName: string): Promise<TiproxyHealth>;
  /** PUT /api/admin/config/ with `[labels]` (what `tiproxyctl config set` sends). */
  setLabels(podName: string, labels: Readonly<Record<string, string>>): Promise<void>;
}
