/**
 * The `tidb-reconciler` command. Each subcommand lives in its own module and has `--help`.
 */
import { ADMIN_HELP, runAdminCommand } from './admin.js';
import { PLAN_HELP, runPlan } from './plan.js';
import { runSimServe, SIM_SERVE_HELP } from './sim-serve.js';
import { runSimulate, SIMULATE_HELP } from './simulate.js';
import { runStart, START_HELP } from './start.js';
import { didYouMean } from './suggest.js';
import { VERSION } from './version.js';

const USAGE = `tidb-reconciler — run TiDB on Kubernetes without an operator

Usage: tidb-reconciler <command> [options]

Commands:
  start        run the local stack on the embedded example (what \`npm start\` runs)
  simulate     run a scenario file against the simulated world on a virtual clock
  sim serve    serve a simulated Kubernetes API server and write a kubeconfig for it
  plan         what the next reconcile step would do to a live cluster, changing nothing
  admin        status, history, reconcile-now, pause, resume, force-upgrade of one TidbCluster,
               and redrive of the dead-letter queue (a deployed stack's admin function, or the
               local stack)

Run \`tidb-reconciler <command> --help\` for a command's options; \`tidb-reconciler --version\` prints the version.`;

type Command = { help: string; run: (args: string[]) => Promise<number> };

const COMMANDS: Record<string, Command> = {
  start: { help: START_HELP, run: runStart },
  simulate: { help: SIMULATE_HELP, run: runSimulate },
  'sim serve': { help: SIM_SERVE_HELP, run: runSimServe },
  plan: { help: PLAN_HELP, run: (args) => runPlan(args) },
  admin: { help: ADMIN_HELP, run: (args) => runAdminCommand(args) },
};

/** Dispatches argv to a subcommand; returns the process exit code. */
export async function main(argv: string[]): Promise<number> {
  const [first, second, ...rest] = argv;
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    console.log(USAGE);
    return first === undefined ? 2 : 0;
  }
  if (first === '--version' || first === 'version') {
    console.log(`tidb-reconciler ${VERSION}`);
    return 0;
  }
  const twoWord = second !== undefined ? COMMANDS[`${first} ${second}`] : undefined;
  const command = twoWord ?? COMMANDS[first];
  const args = twoWord ? rest : argv.slice(1);
  if (!command) {
    const hint = first === 'sim' ? ' (did you mean "sim serve"?)' : didYouMean(first, Object.keys(COMMANDS));
    const typed = first === 'sim' ? [first, second].filter(Boolean).join(' ') : first;
    console.error(`tidb-reconciler: unknown command "${typed}"${hint}\n\n${USAGE}`);
    return 2;
  }
  if (args.includes('--help') || args.includes('-h')) {
    console.log(command.help);
    return 0;
  }
  return command.run(args);
}

main(process.argv.slice(2)).then(
  (code) => {
    // A command that returned is done (servers return only after SIGINT/SIGTERM): leftover
    // keep-alive sockets or timers must not hold the process open.
    process.exit(code);
  },
  (err: unknown) => {
    console.error(`tidb-reconciler: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
