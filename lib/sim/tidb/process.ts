/**
 * The life of one simulated TiDB process, shared by every component: it listens on ports (registers
 * handlers with the proxy registry, so the API server's pod and service proxies reach it) only
 * while it runs, evaluates its container's readiness probe against its own handlers (tcpSocket =
 * listening, httpGet/exec curl = the answer's status, an https curl also needing the CA and client
 * certificate files it names; no probe = ready while running, as
 * Kubernetes does), tells the kubelet when readiness changes, and exits or is stopped cleanly —
 * every timer and port released, so a stopped process never heartbeats or answers again.
 */
import type { TimerHandle } from '../../platform/clock.js';
import type { ListenOptions, PortHandler, ProxyRequest, ProxyResponse, ServerCertificate } from '../proxy.js';
import type { ProcessHooks, SimProcess } from '../runtime.js';
import { type ServingTls, type TlsPaths, readContainerFile, readServingTls } from './container-files.js';
import type { PodInfo } from './pod-info.js';
import type { SimContext } from './sim-context.js';

/** A port handler that answers synchronously (so probes can be evaluated inside `isReady`). */
export type SyncHandler = (req: ProxyRequest) => ProxyResponse;

type Probe = { tcpSocket?: { port: number | string }; httpGet?: { path?: string; port: number | string; scheme?: string }; exec?: { command?: string[] } };

/** Base of every simulated component process. */
export abstract class TidbProcess implements SimProcess {
  protected stopped = false;
  private exit: { reason: string; exitCode: number } | undefined;
  private readonly ports = new Map<number, { handler: SyncHandler | undefined; tls: boolean; unregister: () => void }>();
  private readonly timers = new Set<TimerHandle>();
  private readonly cleanups: (() => void)[] = [];
  private lastReady: boolean | undefined;
  /**
   * The PEM of the CA file the process is configured with, once its TLS is read: its TLS listeners
   * require client certificates signed by it (mtls.ts).
   */
  protected clientCa: string | undefined;
  /** The certificate and key files its config names, once its TLS is read: what its TLS listeners present. */
  protected serverCert: ServerCertificate | undefined;
  /** Why the process is not serving yet or exited, for tests and the report. */
  status = 'starting';

  constructor(
    protected readonly sim: SimContext,
    protected readonly pod: PodInfo,
    protected readonly hooks: ProcessHooks,
  ) {}

  /** The readiness probe's verdict now. */
  isReady(): boolean {
    if (this.stopped || this.exit) return false;
    return this.probe();
  }

  /** How the process ended, once it has. */
  exitReason(): { reason: string; exitCode: number } | undefined {
    return this.exit;
  }

  /** The kubelet kills the process. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.status = 'stopped';
    this.release();
  }

  /** Whether the process is running (not stopped, not exited). */
  get running(): boolean {
    return !this.stopped && !this.exit;
  }

  /** What the process does when it ends either way: leave the cluster state it held. */
  protected abstract onEnd(): void;

  /**
   * Listens on `port` of the pod (a TLS listener with `tls: true`: plain http to it fails; with the
   * process's CA known, a client without a certificate signed by it is refused). Probes use
   * `handler`; clients are served by `serve` when given (an answer that may take time), else by it.
   */
  protected listen(port: number, handler: SyncHandler, options: ListenOptions = {}, serve?: PortHandler): void {
    if (!this.running) return;
    this.ports.get(port)?.unregister();
    const wrapped: PortHandler = serve ?? ((req) => handler(req));
    const clientCa = options.tls === true ? (options.clientCa ?? this.clientCa) : undefined;
    const serverCert = options.tls === true ? (options.serverCert ?? this.serverCert) : undefined;
    const unregister = this.sim.proxy.register(this.pod.namespace, this.pod.name, port, wrapped, {
      ...options,
      ...(clientCa !== undefined ? { clientCa } : {}),
      ...(serverCert !== undefined ? { serverCert } : {}),
    });
    this.ports.set(port, { handler, tls: options.tls === true, unregister });
    this.refreshReadiness();
  }

  /** Listens on `port` with a handler that may wait on other services (an httpGet probe on it fails). */
  protected listenAsync(port: number, handler: PortHandler): void {
    if (!this.running) return;
    this.ports.get(port)?.unregister();
    this.ports.set(port, { handler: undefined, tls: false, unregister: this.sim.proxy.register(this.pod.namespace, this.pod.name, port, handler) });
    this.refreshReadiness();
  }

  /** Stops listening on every port (the process keeps running, e.g. a Pump gone offline). */
  protected closePorts(): void {
    for (const { unregister } of this.ports.values()) unregister();
    this.ports.clear();
    this.refreshReadiness();
  }

  /** Runs `fn` after `ms` unless the process has ended by then. */
  protected after(ms: number, fn: () => void): void {
    const handle = this.sim.clock.setTimer(() => {
      this.timers.delete(handle);
      if (this.running) fn();
    }, ms);
    this.timers.add(handle);
  }

  /** Registers something to undo when the process ends (a subscription). */
  protected onCleanup(fn: () => void): void {
    this.cleanups.push(fn);
  }

  /** The process exits with `exitCode` (the kubelet restarts it with back-off). */
  protected crash(reason: string, exitCode = 1): void {
    if (!this.running) return;
    this.status = `exited: ${reason}`;
    this.exit = { reason: 'Error', exitCode };
    this.release();
    this.hooks.onChange();
  }

  /** Crashes after the knob's delay when the config could not be read; true when it will. */
  protected crashOnBadConfig(): boolean {
    if ('ok' in this.pod.config) return false;
    const why = this.pod.config.error;
    this.after(this.sim.knobs.crashAfterMs, () => this.crash(why));
    return true;
  }

  /**
   * The TLS the process serves with, from the certificate files its config names (`paths`); when
   * they are half-configured or not in the container, the process exits after the knob's delay,
   * as the real server does at start (then `problem` is set and the caller starts nothing).
   */
  protected servingTls(paths: TlsPaths): ServingTls {
    const tls = readServingTls(this.sim.store, this.sim.store.get('Pod', this.pod.namespace, this.pod.name), this.pod, paths);
    const problem = tls.problem;
    if (problem !== undefined) this.after(this.sim.knobs.crashAfterMs, () => this.crash(problem));
    else if (tls.tls && !('problem' in paths)) {
      if (paths.ca !== '') this.clientCa = this.containerFile(paths.ca);
      this.serverCert = this.certificateFiles(paths.cert, paths.key);
    }
    return tls;
  }

  /** The certificate and key at these paths of the container, when both are there. */
  protected certificateFiles(certPath: string, keyPath: string): ServerCertificate | undefined {
    const certPem = certPath === '' ? undefined : this.containerFile(certPath);
    const keyPem = keyPath === '' ? undefined : this.containerFile(keyPath);
    return certPem !== undefined && keyPem !== undefined ? { certPem, keyPem } : undefined;
  }

  /** A file of the process's container (through its mounts), or undefined when it is not there. */
  protected containerFile(path: string): string | undefined {
    const pod = this.sim.store.get('Pod', this.pod.namespace, this.pod.name);
    return pod === undefined ? undefined : readContainerFile(this.sim.store, pod, this.pod, path);
  }

  /** Re-evaluates readiness and tells the kubelet when it changed. */
  protected refreshReadiness(): void {
    const ready = this.isReady();
    if (ready === this.lastReady) return;
    this.lastReady = ready;
    this.hooks.onChange();
  }

  private release(): void {
    for (const t of this.timers) this.sim.clock.clearTimer(t);
    this.timers.clear();
    for (const { unregister } of this.ports.values()) unregister();
    this.ports.clear();
    for (const fn of this.cleanups.splice(0)) fn();
    this.onEnd();
  }

  private probe(): boolean {
    const probe = this.pod.container.readinessProbe as Probe | undefined;
    if (!probe) return true;
    if (probe.tcpSocket) return this.resolvePort(probe.tcpSocket.port) !== undefined && this.ports.has(this.resolvePort(probe.tcpSocket.port) ?? -1);
    if (probe.httpGet) return this.httpOk(this.resolvePort(probe.httpGet.port), probe.httpGet.path ?? '/', probe.httpGet.scheme === 'HTTPS');
    const command = probe.exec?.command ?? [];
    const url = command.join(' ').match(/(https?):\/\/[^/\s:]+:(\d+)(\/[^\s'"]*)?/);
    if (url) return this.httpOk(Number(url[2]), url[3] ?? '/', url[1] === 'https') && (url[1] === 'http' || this.curlHasCertificates(command));
    return true;
  }

  private httpOk(port: number | undefined, path: string, https: boolean): boolean {
    const entry = port === undefined ? undefined : this.ports.get(port);
    // A plain request to a TLS listener (or the reverse) gets no 2xx/3xx answer.
    if (!entry?.handler || entry.tls !== https) return false;
    const [pathname = '/', query = ''] = path.split('?');
    try {
      const res = entry.handler({ method: 'GET', path: pathname, query: new URLSearchParams(query), body: '', headers: {} });
      return res.status >= 200 && res.status < 400;
    } catch {
      return false;
    }
  }

  /**
   * Whether an https `curl` can complete the handshake: it must trust the server's cluster CA
   * (`--cacert <file>`, or `-k`) and present a client certificate (`--cert`, `--key`), because the
   * TLS status servers verify clients against their CA; every named file must be in the container.
   */
  private curlHasCertificates(command: readonly string[]): boolean {
    const value = (flag: string): string | undefined => {
      const i = command.indexOf(flag);
      const inline = command.find((a) => a.startsWith(`${flag}=`));
      return i >= 0 ? command[i + 1] : inline?.slice(flag.length + 1);
    };
    const pod = this.sim.store.get('Pod', this.pod.namespace, this.pod.name);
    const present = (path: string | undefined): boolean => path !== undefined && pod !== undefined && readContainerFile(this.sim.store, pod, this.pod, path) !== undefined;
    const trusts = command.includes('-k') || command.includes('--insecure') || present(value('--cacert'));
    return trusts && present(value('--cert')) && present(value('--key'));
  }

  private resolvePort(port: number | string): number | undefined {
    if (typeof port === 'number') return port;
    if (/^\d+$/.test(port)) return Number(port);
    return this.pod.container.ports?.find((p) => p.name === port)?.containerPort;
  }
}
