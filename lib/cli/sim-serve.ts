/**
 * `tidb-reconciler sim serve`: the simulated world on the real clock, reachable with kubectl.
 */
import { parseArgsWithHints } from './suggest.js';
import { RealClock } from '../platform/clock.js';
import { parseDuration } from '../platform/duration.js';
import { writeSimKubeconfig } from '../sim/kubeconfig.js';
import { selfSignedCert } from '../local/tls-front.js';
import { TidbSimulation } from '../sim/tidb/simulation.js';
import { SimWorld } from '../sim/world.js';
import { startVpcGateway } from '../sim/vpc-gateway.js';
import { reportControllerError } from './report.js';

/** Help text of `sim serve`. */
export const SIM_SERVE_HELP = `Usage: tidb-reconciler sim serve [--port N] [--vpc-port N] [--kubeconfig FILE] [--nodes N] [--pod-startup DURATION]

Serves a simulated Kubernetes API server on 127.0.0.1 (StatefulSets, Deployments, a kubelet,
PV provisioning, garbage collection) with simulated PD, TiKV, TiFlash, TiDB, TiCDC, Pump and
discovery processes in the pods that run their images, and writes a kubeconfig for it. Runs until
interrupted. It also offers the cluster's VPC to other processes: an HTTP CONNECT proxy on
127.0.0.1 whose tunnels reach pods by pod IP, the components behind them speaking real (mutual)
TLS with the certificates of their Secrets, as a Lambda attached to the VPC reaches them.
Point the local stack at both:
  tidb-reconciler start --kubeconfig FILE --vpc-proxy http://127.0.0.1:<vpc-port>
(without --vpc-proxy its functions are outside the VPC and reach components through the API
server's proxy, which a TLS cluster refuses).

Options:
  --port N               port to listen on (default: a free port)
  --vpc-port N           port of the VPC's CONNECT proxy (default: a free port)
  --kubeconfig FILE      where to write the kubeconfig (default: ./sim.kubeconfig)
  --nodes N              simulated nodes node-0..node-N-1 over zones zone-a/b/c (default 3)
  --pod-startup D        Pending → Running+Ready time of a healthy pod (default 5s)

Example:
  tidb-reconciler sim serve --port 6443 --kubeconfig /tmp/sim.kubeconfig &
  kubectl --kubeconfig /tmp/sim.kubeconfig get nodes`;

/** Parses the options of `sim serve`; throws a message naming the bad option. */
export function parseSimServeArgs(args: string[]): { port: number; vpcPort: number; kubeconfig: string; nodes: number; podStartupMs: number } {
  const { values } = parseArgsWithHints({
    args,
    options: {
      port: { type: 'string' },
      'vpc-port': { type: 'string' },
      kubeconfig: { type: 'string' },
      nodes: { type: 'string' },
      'pod-startup': { type: 'string' },
    },
    strict: true,
  });
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port: "${values.port}" is not a port number (0-65535)`);
  const vpcPort = values['vpc-port'] === undefined ? 0 : Number(values['vpc-port']);
  if (!Number.isInteger(vpcPort) || vpcPort < 0 || vpcPort > 65535) throw new Error(`--vpc-port: "${values['vpc-port']}" is not a port number (0-65535)`);
  const nodes = values.nodes === undefined ? 3 : Number(values.nodes);
  if (!Number.isInteger(nodes) || nodes < 1 || nodes > 1000) throw new Error(`--nodes: "${values.nodes}" must be an integer from 1 to 1000`);
  let podStartupMs = 5000;
  if (values['pod-startup'] !== undefined) {
    try {
      podStartupMs = parseDuration(values['pod-startup']);
    } catch (err) {
      throw new Error(`--pod-startup: ${(err as Error).message}`);
    }
  }
  return { port, vpcPort, kubeconfig: values.kubeconfig ?? 'sim.kubeconfig', nodes, podStartupMs };
}

/** Runs `sim serve` until SIGINT/SIGTERM. */
export async function runSimServe(args: string[]): Promise<number> {
  let opts: ReturnType<typeof parseSimServeArgs>;
  try {
    opts = parseSimServeArgs(args);
  } catch (err) {
    console.error(`tidb-reconciler sim serve: ${(err as Error).message}\n\n${SIM_SERVE_HELP}`);
    return 2;
  }
  // The TiDB processes run inside the pods, so a reconciler pointed at this server finds PD and TiKV.
  const sim = new TidbSimulation({ seed: 1, knobs: { nodes: opts.nodes, podStartupMs: opts.podStartupMs } });
  // Every request authenticated and authorised by RBAC; https, as kubectl sends bearer tokens only over TLS (ADR 0017).
  const world = await SimWorld.start({ clock: new RealClock(), onControllerError: reportControllerError, nodes: opts.nodes, podStartupMs: opts.podStartupMs, port: opts.port, runtimes: [sim.runtime], random: sim.random, proxyRandom: sim.proxyRandom, rbac: true, tls: selfSignedCert() });
  sim.attach(world);
  // The cluster's VPC routing, for a local stack placing its functions there (docs/adr/0032).
  const vpc = await startVpcGateway(world.proxy, { port: opts.vpcPort });
  // The kubeconfig authenticates as the cluster admin (system:masters), as the cluster's creator's does.
  writeSimKubeconfig(opts.kubeconfig, world.url, world.token, world.caData);
  console.log(`simulated Kubernetes API server listening on ${world.url}`);
  console.log(`cluster VPC (pod IPs) through the CONNECT proxy ${vpc.url}`);
  console.log(`functions in the VPC: tidb-reconciler start --kubeconfig ${opts.kubeconfig} --vpc-proxy ${vpc.url}`);
  // Last: test harnesses wait for this line.
  console.log(`kubeconfig written to ${opts.kubeconfig}  (kubectl --kubeconfig ${opts.kubeconfig} get nodes)`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await vpc.close();
  sim.stop();
  await world.stop();
  console.log('stopped');
  return 0;
}
