/**
 * What a step knows about the TiDB servers, read from each pod's status port (reference §3.2): as
 * TiDB Operator, a server is healthy when `GET /status` answered below 400. Only the pods the rules
 * judge are asked — those of ordinals the StatefulSet runs that are Running with an address; the
 * others are simply absent from the view (the status rule counts them unhealthy without a call).
 */

/** One TiDB server's `/status` verdict: healthy, or not with why. */
export type TidbServerHealth = { readonly healthy: boolean; readonly detail?: string };

/** The TiDB servers as one step read them, by pod name. */
export type TidbView = { readonly servers: Readonly<Record<string, TidbServerHealth>> };

/** Why the TiDB servers could not be read at all: our own path to them failed (not a TiDB verdict). */
export type TidbReadFailure = 'unreachable';
