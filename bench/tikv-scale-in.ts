/**
 * A TiKV scale-in of one store to Tombstone (bench/scenarios/tikv-scale-in.yaml), for the operations
 * section: ours, the physical minimum (the simulator's leader eviction + store removal: PD cannot
 * move leaders and peers faster) and the TiDB-Operator-like loop at the three resync phases.
 *
 *   npx tsx -e "import('./bench/tikv-scale-in.ts').then(async (m) => console.log(await m.benchTikvScaleIn()))"
 */
import { ZERO_LATENCY } from '../lib/local/latency.js';
import { RESYNC_PHASES_MS, type Run, measure, num, operatorLike, ours, oursZeroLatency, ratio, recordRun, secs, spread, zeroLatencyCells } from './operations.js';

const FILE = 'tikv-scale-in.yaml';
/** The entries of the file: the patch (2), the store Tombstone in status (3), the StatefulSet at 3 replicas (4). */
const PATCH = 2;
const TOMBSTONE = 3;
const REPLICAS = 4;

/** The rows this adds to the operations table, the notes under it, and its runs' invariant violations. */
export type TikvScaleInBench = { rows: (string | number)[][]; notes: string[]; runs: number; violations: number };

/** Runs the TiKV scale-in once ours and once per resync phase the TiDB-Operator-like way. */
export async function benchTikvScaleIn(): Promise<TikvScaleInBench> {
  const mine = await recordRun(FILE, ours);
  const zero = await oursZeroLatency(FILE);
  const theirs: Run[] = [];
  for (const phase of RESYNC_PHASES_MS) theirs.push(await recordRun(FILE, operatorLike(phase), undefined, ZERO_LATENCY));
  const { leaderEvictionMs, regionsPerStore, storeDrainPerMinute } = mine.scenario.sim;
  // The leaving store holds regionsPerStore replicas (the cluster is balanced at its largest size).
  const storeRemovalMs = (regionsPerStore * 60_000) / storeDrainPerMinute;
  const minimumMs = leaderEvictionMs + storeRemovalMs;
  const row = (name: string, to: number): (string | number)[] => {
    const o = measure(mine, { from: PATCH, to });
    const m = theirs.map((run) => measure(run, { from: PATCH, to }));
    const theirMean = m.reduce((a, x) => a + x.virtualMs, 0) / m.length;
    const z = measure(zero, { from: PATCH, to });
    return [name, secs(minimumMs), `**${secs(o.virtualMs)}**`, `**${ratio(o.virtualMs, minimumMs)}**`, ...zeroLatencyCells(z.virtualMs, minimumMs), o.steps, spread(m.map((x) => x.virtualMs), secs), ratio(theirMean, minimumMs), spread(m.map((x) => x.steps), num)];
  };
  const all = [mine, zero, ...theirs];
  return {
    rows: [row('TiKV scale-in 4 → 3: patch → store Tombstone', TOMBSTONE), row('TiKV scale-in 4 → 3: patch → StatefulSet at 3', REPLICAS)],
    notes: [
      `- TiKV scale-in 4 → 3 (bench/scenarios/${FILE}): no pod starts; the physical minimum is the simulator's leader eviction (${secs(leaderEvictionMs)}) + store removal (${secs(storeRemovalMs)}): the store's leaders drain, then PD moves its peers away and buries it. Between them one step deletes the store, and after Tombstone one step releases the PVCs and lowers replicas.`,
    ],
    runs: all.length,
    violations: all.reduce((n, r) => n + r.violations, 0),
  };
}
