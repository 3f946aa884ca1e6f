/**
 * `tidb-reconciler simulate FILE.yaml`: parse the scenario (exit 2 naming the field when it is
 * invalid; nothing runs), run it on the simulated stack, write the JSON report to `--out` or
 * stdout, exit 0 when it passed and 1 when it did not. Progress goes to stderr.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { EXIT_INVALID, SIMULATE_HELP, exitCodeFor, parseSimulateArgs } from '../local/scenario/cli.js';
import { parseScenario } from '../local/scenario/file.js';
import { createProgress } from '../local/scenario/progress.js';
import { reportToJson } from '../local/scenario/report.js';
import type { JsonObject } from '../local/scenario/types.js';
import { SimStack } from '../local/sim-stack.js';
import { readTwin, type Twin } from '../local/twin.js';
import { runScenario } from '../local/simulate.js';

export { SIMULATE_HELP };

/** Runs `simulate` with the arguments after the command name; resolves to the exit code. */
export async function runSimulate(args: string[]): Promise<number> {
  const parsed = parseSimulateArgs(args);
  if (parsed.kind === 'help') {
    console.log(SIMULATE_HELP);
    return 0;
  }
  if (parsed.kind === 'error') {
    console.error(`tidb-reconciler simulate: ${parsed.error}`);
    return EXIT_INVALID;
  }
  const { file, out, seed, quiet } = parsed.options;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    console.error(`tidb-reconciler simulate: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    return EXIT_INVALID;
  }
  let twin: Twin | undefined;
  if (parsed.options.from) {
    const { kubeconfig, namespace, name } = parsed.options.from;
    try {
      twin = await readTwin(kubeconfig, { namespace, name });
    } catch (err) {
      console.error(`tidb-reconciler simulate: --from-kubeconfig: ${(err as Error).message}`);
      return EXIT_INVALID;
    }
  }
  const scenario = parseScenario(text, file, twin ? { cluster: twin.cluster } : {});
  if (!scenario.ok) {
    console.error(scenario.error);
    return EXIT_INVALID;
  }
  const run = twin ? { ...scenario.scenario, twinObjects: twin.objects as unknown as JsonObject[] } : scenario.scenario;
  const stack = await SimStack.start(run, seed ?? scenario.scenario.seed, { verbose: process.env.TIDB_RECONCILER_LOG === '1' });
  try {
    const report = await runScenario(stack, createProgress({ quiet }));
    if (out) writeFileSync(out, reportToJson(report));
    else process.stdout.write(reportToJson(report));
    return exitCodeFor(report);
  } finally {
    await stack.stop();
  }
}
