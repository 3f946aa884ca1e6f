/**
 * A TiFlash process: a store labelled `engine=tiflash` at `<pod>.<tc>-tiflash-peer.<ns>.svc:3930`
 * (it waits for TiKV to bootstrap the cluster first), and the proxy status port 20292 whose
 * `/tiflash/store-status` answers `Running` once the store is registered.
 */
import type { ProcessHooks } from '../runtime.js';
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

  protected initialLabels(): { key: string; value: string }[] {
    return [...configLabels(this.pod).filter((l) => l.key !== 'engine'), { key: 'engine', value: 'tiflash' }];
  }

  protected onRegistered(): void {
    for (const port of [3930, 8234, 20170]) this.listen(port, () => text(404, '', false));
    this.listen(20292, (req) => {
      if (req.method === 'GET' && req.path === '/tiflash/store-status') return text(200, 'Running', false);
      return text(404, '', false);
    });
  }
}
