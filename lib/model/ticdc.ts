/**
 * What a step knows about TiCDC and Pump, read through their own HTTP APIs (reference §3.3, §2.6):
 * each TiCDC pod's capture, the drain progress of captures the reconciler is draining, and the Pump
 * nodes as binlog registers them.
 */

/**
 * One TiCDC pod's capture as its `/status` describes it. `ready` is false when the pod did not
 * answer (then `detail` says why and the other fields are absent), as TiDB Operator records it.
 */
export type TicdcCaptureView =
  | { readonly podName: string; readonly ready: true; readonly id: string; readonly version: string; readonly isOwner: boolean }
  | { readonly podName: string; readonly ready: false; readonly detail: string };

/**
 * A drain of one capture, as TiCDC answered this step: `alone` when `GET /api/v1/captures` lists this
 * capture alone (or none) — there is no other capture to take its ownership or its tables; else as
 * `PUT /api/v1/captures/drain` answered, the tables still on it (0: drained, or TiCDC cannot drain),
 * or why it must be asked again (`retry`: 503, the capture is still the owner, or TiCDC could not be
 * asked).
 */
export type TicdcDrainView = { readonly kind: 'alone' } | { readonly kind: 'tables'; readonly count: number } | { readonly kind: 'retry'; readonly reason: string };

/**
 * TiCDC as a step observed it: every pod's capture by pod name, and — for the pods whose drain the
 * reconciler began (TiDB Operator's graceful-shutdown begin annotation) — the drain's progress.
 */
export type TicdcView = {
  readonly captures: Readonly<Record<string, TicdcCaptureView>>;
  readonly drains: Readonly<Record<string, TicdcDrainView>>;
};

/** One Pump node as the binlog registry lists it (`PumpNodeStatus`): `nodeId` is `<pod>:8250`. */
export type PumpNodeView = { readonly nodeId: string; readonly host: string; readonly state: string };

/**
 * Pump as a step observed it: every registered node, in registration order — or, when no Pump pod
 * answered (none running, or all gone offline), `nodes` undefined and `detail` saying why.
 */
export type PumpView = { readonly nodes: readonly PumpNodeView[]; readonly detail?: never } | { readonly nodes: undefined; readonly detail: string };
