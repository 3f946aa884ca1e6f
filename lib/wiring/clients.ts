/**
 * The remote clients one invocation uses: the Kubernetes API, and PD, TiKV, TiDB, TiFlash, TiCDC,
 * Pump and TiProxy of a given TidbCluster — reached directly from inside the cluster's VPC (the default, as TiDB
 * Operator; names resolved through the API server, the cluster client certificate under TLS), or
 * through the API server's proxy when the deployment opts in (`COMPONENT_ACCESS=api-proxy`).
 * Built once per process (connections and the EKS token stay warm across invocations) and narrowed
 * per invocation with `withDeadline`, so no call outlives the invocation that made it.
 */

import type { KubeConfig } from '@kubernetes/client-node/dist/config.js';

import type { ComponentNetwork } from '../components/network.js';
import type { ResolvedNames } from '../components/direct.js';

import { ComponentCaller } from '../components/caller.js';
import type { TidbStatusPort, TikvStatusPort } from '../components/port.js';
import { TidbStatusClient } from '../components/tidb.js';
import { TikvStatusClient } from '../components/tikv.js';
import { KubeClient } from '../kube/client.js';
import type { PumpPort, TicdcPort } from '../components/port.js';
import { PumpClient } from '../components/pump.js';
import { TicdcClient } from '../components/ticdc.js';
import type { TiflashStatusPort } from '../components/port.js';
import { TiflashStatusClient } from '../components/tiflash.js';
import type { TiproxyPort } from '../components/port.js';
import { TiproxyClient } from '../components/tiproxy.js';
import type { KubePort, ObjectReader } from '../kube/port.js';
import { TidbSchemaClient, type TidbSchemaPort } from '../components/tidb-schema.js';
import { PdClient } from '../pd/client.js';
import { PdEtcdClient, type PdEtcdPort } from '../pd/etcd.js';
import type { PdPort } from '../pd/port.js';
import type { Clock } from '../platform/clock.js';
import type { RetryPolicy } from '../platform/retry.js';

/** Which TidbCluster a component client talks to; `tls` when its components serve cluster TLS (https). */
export type ClusterTarget = { readonly namespace: string; readonly tcName: string; readonly tls?: boolean };

/** What the observer and executor call: the Kubernetes API and each cluster's component APIs. */
export interface ClusterClients {
  readonly kube: KubePort;
  /** The reads of the controllers beside the TidbCluster's; without it only the TidbCluster controller runs. */
  readonly objects?: ObjectReader;
  /** The schema reads of the cluster's TiDB (the Restore controller's fresh-target check). */
  tidbSchema?(target: ClusterTarget): TidbSchemaPort;
  pd(target: ClusterTarget): PdPort;
  /** The reads of PD's etcd (the Backup controller's log-backup checkpoint tracker). */
  pdEtcd?(target: ClusterTarget): PdEtcdPort;
  /** The status port (20180) of the cluster's TiKV pods. */
  tikv(target: ClusterTarget): TikvStatusPort;
  /** The status ports of the cluster's TiDB pods. */
  tidb(target: ClusterTarget): TidbStatusPort;
  /** The TiCDC capture API of the cluster's TiCDC pods. */
  ticdc(target: ClusterTarget): TicdcPort;
  /** The Pump node API of the cluster's Pump pods. */
  pump(target: ClusterTarget): PumpPort;
  /** The TiFlash proxy status port of the cluster's TiFlash pods. */
  tiflash(target: ClusterTarget): TiflashStatusPort;
  /** The API port (3080) of the cluster's TiProxy pods. */
  tiproxy(target: ClusterTarget): TiproxyPort;
  /**
   * The same clients, reaching a component at the address its name last resolved to when one is
   * kept (a step at rest reads components without asking the API server where they are, docs/adr/0024).
   */
  reusing?(): ClusterClients;
  /** The component names direct access resolved and keeps (docs/adr/0024); none through the API server proxy. */
  resolvedNames?(): ResolvedNames | undefined;
}

/** Clients whose every call also ends by a deadline: what a composition root hands out per invocation. */
export interface DeadlineClients extends ClusterClients {
  /**
   * The same clients with every call bounded by `deadlineAtMs` (on the clients' clock), and every
   * in-call retry given up rather than waiting past `retryUntilMs` (default `deadlineAtMs`; a step
   * passes the end of its work budget, so retries never eat the time its commit needs).
   */
  withDeadline(deadlineAtMs: number, retryUntilMs?: number): ClusterClients;
}

/**
 * Per-call timeouts (the defaults are the adapters' own: Kubernetes 10 s, components 5 s), the
 * in-call retry policy (default `DEFAULT_RETRY_POLICY`) and the randomness that jitters it (default
 * `Math.random`; a simulation passes a seeded one).
 */
export type ClientTimeouts = {
  readonly kubeTimeoutMs?: number;
  readonly componentTimeoutMs?: number;
  readonly retry?: RetryPolicy;
  readonly random?: () => number;
};

/**
 * How the functions reach the components: `direct` over `network` from inside the cluster's VPC
 * (docs/adr/0018), or `api-proxy` through the API server (no client certificate: components under
 * cluster TLS refuse it).
 */
export type ComponentAccess = { readonly mode: 'direct'; readonly network: ComponentNetwork } | { readonly mode: 'api-proxy' };

/** The proxy path, for tools run from outside the VPC (a laptop's kubeconfig: `plan`, `twin`). */
export const VIA_API_PROXY: ComponentAccess = { mode: 'api-proxy' };

/** `ClusterClients` over one KubeConfig: Kubernetes REST, and the components as `ComponentAccess` says. */
export class ApiServerClients implements DeadlineClients {
  private constructor(
    readonly kube: KubeClient,
    private readonly caller: ComponentCaller,
  ) {}

  /** The Kubernetes client's generic reads, for the backup controllers. */
  get objects(): ObjectReader {
    return this.kube;
  }

  /** Clients for the KubeConfig's current cluster, measuring deadlines on `clock`, reaching components as `access` says. */
  static fromKubeConfig(kubeConfig: KubeConfig, clock: Clock, timeouts: ClientTimeouts = {}, access: ComponentAccess = VIA_API_PROXY): ApiServerClients {
    const retry = { ...(timeouts.retry ? { retry: timeouts.retry } : {}), ...(timeouts.random ? { random: timeouts.random } : {}) };
    const kube = KubeClient.fromKubeConfig(kubeConfig, { clock, ...retry, ...optional('timeoutMs', timeouts.kubeTimeoutMs) });
    const callerOptions = { clock, ...retry, ...optional('timeoutMs', timeouts.componentTimeoutMs) };
    const direct = timeouts.random ? { random: timeouts.random } : {};
    const caller = access.mode === 'direct' ? ComponentCaller.direct(kubeConfig, access.network, callerOptions, direct) : ComponentCaller.viaApiProxy(kubeConfig, callerOptions);
    return new ApiServerClients(kube, caller);
  }

  withDeadline(deadlineAtMs: number, retryUntilMs?: number): ApiServerClients {
    return new ApiServerClients(this.kube.withDeadline(deadlineAtMs, retryUntilMs), this.caller.withDeadline(deadlineAtMs, retryUntilMs));
  }

  reusing(): ApiServerClients {
    return new ApiServerClients(this.kube, this.caller.reusing());
  }

  resolvedNames(): ResolvedNames | undefined {
    return this.caller.resolvedNames();
  }

  tidbSchema(target: ClusterTarget): TidbSchemaPort {
    return new TidbSchemaClient(this.caller, { namespace: target.namespace, tcName: target.tcName, scheme: target.tls === true ? 'https' : 'http' });
  }

  pd(target: ClusterTarget): PdPort {
    return new PdClient(this.caller, { namespace: target.namespace, tcName: target.tcName, scheme: target.tls === true ? 'https' : 'http' });
  }

  pdEtcd(target: ClusterTarget): PdEtcdPort {
    return new PdEtcdClient(this.caller, { namespace: target.namespace, tcName: target.tcName, scheme: target.tls === true ? 'https' : 'http' });
  }

  tikv(target: ClusterTarget): TikvStatusPort {
    return new TikvStatusClient(this.caller, { namespace: target.namespace, tcName: target.tcName, scheme: target.tls === true ? 'https' : 'http' });
  }

  tidb(target: ClusterTarget): TidbStatusPort {
    return new TidbStatusClient(this.caller, { namespace: target.namespace, tcName: target.tcName, scheme: target.tls === true ? 'https' : 'http' });
  }

  ticdc(target: ClusterTarget): TicdcPort {
    return new TicdcClient(this.caller, { namespace: target.namespace, tcName: target.tcName, scheme: target.tls === true ? 'https' : 'http' });
  }

  pump(target: ClusterTarget): PumpPort {
    return new PumpClient(this.caller, { namespace: target.namespace, tcName: target.tcName, scheme: target.tls === true ? 'https' : 'http' });
  }

  tiflash(target: ClusterTarget): TiflashStatusPort {
    return new TiflashStatusClient(this.caller, { namespace: target.namespace, tcName: target.tcName, scheme: target.tls === true ? 'https' : 'http' });
  }

  tiproxy(target: ClusterTarget): TiproxyPort {
    return new TiproxyClient(this.caller, { namespace: target.namespace, tcName: target.tcName, scheme: target.tls === true ? 'https' : 'http' });
  }
}

function optional<K extends string>(key: K, value: number | undefined): Partial<Record<K, number>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, number>);
}
