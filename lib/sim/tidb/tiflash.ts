/**
 * A TiFlash process: a store labelled `engine=tiflash` at `<pod>.<tc>-tiflash-peer.<ns>.svc:3930`
 * (it waits for TiKV to bootstrap the cluster first), and the proxy status port 20292 whose
 * `/tiflash/store-status` answers `Running` once the store is registered. The proxy reads its
 * `proxy_templ.toml` (rendered by the init container from the pod's config volume): a CA in its
 * `[security]` (cluster TLS) makes 20292 a TLS listener.
 */
import type { ProcessHooks } from '../runtime.js';
import { parse as parseToml } from 'smol-toml';
import type { TlsPaths } from './container-files.js';
import { text } from './http.js';
import type { PodInfo } from './pod-info.js';
import type { SimContext } from './sim-context.js';
import { StoreProcess, configLabels } from './store-process.js';

/** One TiFlash process. */
export class TiflashProcess extends StoreProcess {
  constructor(sim: SimContext, pod: PodInfo, hooks: ProcessHooks) {
    super(sim, pod, hooks, 'tiflash');
  }

  protected addresses(): { address: string; statusAddress: string } {
    return { address: this.host(3930), statusAddress: this.host(20292) };
  }

  protected tlsPaths(): TlsPaths {
    const config = this.proxyConfig();
    if ('problem' in config) return config;
    const security = (config.ok['security'] ?? {}) as Record<string, unknown>;
    const at = (key: string): string => (typeof security[`${key}-path`] === 'string' ? String(security[`${key}-path`]) : '');
    return { ca: at('ca'), cert: at('cert'), key: at('key') };
  }

  /** The proxy's template from the pod's ConfigMap volumes (empty when there is none), or why it does not parse. */
  private proxyConfig(): { ok: Record<string, unknown> } | { problem: string } {
    const pod = this.sim.store.get('Pod', this.pod.namespace, this.pod.name);
    const volumes = (pod?.spec?.volumes ?? []) as { configMap?: { name?: string } }[];
    for (const v of volumes) {
      const data = this.sim.store.get('ConfigMap', this.pod.namespace, v.configMap?.name ?? '')?.['data'] as Record<string, unknown> | undefined;
      const text = data?.['proxy_templ.toml'];
      if (typeof text !== 'string') continue;
      try {
        return { ok: parseToml(text) as Record<string, unknown> };
      } catch (err) {
        return { problem: `invalid proxy configuration file: ${(err as Error).message.split('\n')[0] ?? ''}` };
      }
    }
    return { ok: {} };
  }

  protected initialLabels(): { key: string; value: string }[] {
    return [...configLabels(this.pod).filter((l) => l.key !== 'engine'), { key: 'engine', value: 'tiflash' }];
  }

  protected onRegistered(): void {
    for (const port of [3930, 8234, 20170]) this.listen(port, () => text(404, '', false));
    this.listen(20292, (req) => {
      if (req.method === 'GET' && req.path === '/tiflash/store-status') return text(200, 'Running', false);
      return text(404, '', false);
    }, { tls: this.tls.tls });
  }
}
