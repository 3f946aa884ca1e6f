/**
 * What a step knows about TiProxy, read through its own HTTP API (docs/reference/tiproxy.md): each
 * pod's answer to `GET /api/debug/health` on port 3080, as TiDB Operator's `tiproxyctl health` asks it.
 */

/**
 * One TiProxy pod's health: `healthy` with the body TiProxy answered (its config checksum) when it
 * answered 200; otherwise not healthy, with why (502 "server is not ready" / "server is closing",
 * or no answer at all).
 */
export type TiproxyHealthView =
  | { readonly podName: string; readonly healthy: true; readonly info: string }
  | { readonly podName: string; readonly healthy: false; readonly detail: string };

/** TiProxy as a step observed it: every listed pod's health, by pod name. */
export type TiproxyView = { readonly members: Readonly<Record<string, TiproxyHealthView>> };
