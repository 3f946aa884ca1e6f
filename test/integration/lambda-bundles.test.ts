/**
 * The Lambda bundles as `npm run build` makes them from serverless.yml: each carries what it runs
 * and nothing a function never reaches (undici, ws, the kubeconfig proxy agents, client-node's
 * generated API clients and models), the AWS SDK is inside (no import left for the runtime's
 * copy), each loads on its own in a fresh Node process, and a left-out module's stand-in fails
 * loudly, naming why it was left out, if anything ever calls it.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { type BuiltFunction, buildFunctions } from '../../scripts/build.js';
import { serverlessEsbuildOptions } from '../../scripts/esbuild-options.js';

const root = resolve(import.meta.dirname, '../..');
const NODE = join(root, 'node_modules', '.bin', 'node');

let out = '';
let built: BuiltFunction[] = [];

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), 'lambda-bundles-'));
  built = await buildFunctions(join(out, 'dist'));
}, 120_000);

afterAll(() => {
  if (out) rmSync(out, { recursive: true, force: true });
});

/** Imports `file` in a fresh Node process from a folder with no node_modules; resolves to its stdout and stderr. */
function importAlone(file: string, code = "if (typeof m.handler !== 'function') throw new Error('no handler');"): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(NODE, ['--input-type=module', '-e', `const m = await import(${JSON.stringify(pathToFileURL(file).href)});\n${code}`], {
    cwd: out,
    env: { PATH: process.env['PATH'] ?? '' },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

const LEFT_OUT = [
  { name: 'undici', path: /node_modules\/undici\// },
  { name: 'ws', path: /node_modules\/(ws|isomorphic-ws)\// },
  { name: 'the proxy agents', path: /node_modules\/(socks|socks-proxy-agent|hpagent|ip-address)\// },
  { name: "client-node's generated API clients and models", path: /@kubernetes\/client-node\/dist\/gen\/(index|apis|models|types|configuration|servers)/ },
  { name: "client-node's package index", path: /@kubernetes\/client-node\/dist\/index\.js$/ },
];

describe('Lambda bundles', () => {
  it('every function of serverless.yml is built', () => {
    expect(built.map((b) => b.name)).toEqual(['reconcile', 'sweep', 'timer', 'admin', 'exporter']);
  });

  it.each(LEFT_OUT)('no bundle contains $name', ({ path }) => {
    const found = built.flatMap((b) => b.inputs.filter((input) => path.test(input)).map((input) => `${b.name}: ${input}`));
    expect(found).toEqual([]);
  });

  it('the timer function, which only enqueues, carries no Kubernetes, DynamoDB or Scheduler client', () => {
    const timer = built.find((b) => b.name === 'timer');
    const clients = (timer?.inputs ?? []).filter((input) => /@kubernetes\/client-node\/|@aws-sdk\/(client-dynamodb|lib-dynamodb|client-scheduler)\//.test(input));
    expect(clients).toEqual([]);
    expect(timer?.inputs.some((input) => input.includes('@aws-sdk/client-sqs/'))).toBe(true);
  });

  it('the AWS SDK is bundled: no bundle imports anything at run time but Node\'s own modules', () => {
    const packages = built.map((b) => ({ fn: b.name, imports: b.externals.filter((e) => !e.path.startsWith('node:') && !builtinModules.includes(e.path)) }));
    expect(packages).toEqual(built.map((b) => ({ fn: b.name, imports: [] })));
  });

  it('each bundle loads on its own in a fresh Node process and exports its handler', () => {
    for (const b of built) {
      const run = importAlone(b.file);
      // uri-js (under the spec validator) requires Node's deprecated punycode module, as it always did.
      const stderr = run.stderr.replace(/\(node:\d+\) \[DEP0040\][^\n]*\n\(Use `node --trace-deprecation[^\n]*\n/g, '');
      expect({ fn: b.name, status: run.status, stderr }).toEqual({ fn: b.name, status: 0, stderr: '' });
    }
  });

  it('an error thrown from a bundle carries its class name (error classes name themselves from their constructor)', () => {
    // Prepare: the reconcile bundle, invoked without the Lambda environment
    const reconcile = built.find((b) => b.name === 'reconcile');
    if (!reconcile) throw new Error('no reconcile bundle');

    // Act
    const run = importAlone(reconcile.file, "try { await m.handler({}, { getRemainingTimeInMillis: () => 1000, awsRequestId: 'r' }); } catch (e) { console.log(e.name + ': ' + e.message); }");

    // Assess
    expect(run.stdout).toMatch(/^ConfigError: invalid configuration: CLUSTER_NAME: not set;/);
  });

  it("a left-out module's stand-in throws, naming what was left out and why", async () => {
    // Prepare: an entry that reaches undici, bundled with the Lambda options
    const { options } = serverlessEsbuildOptions();
    const file = join(out, 'reaches-undici.mjs');
    await build({ ...options, sourcemap: false, stdin: { contents: "import { Agent } from 'undici';\nexport const handler = () => new Agent();", resolveDir: root, loader: 'ts' }, outfile: file });

    // Act
    const run = importAlone(file, 'try { m.handler(); console.log("constructed"); } catch (e) { console.log(e.message); }');

    // Assess
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^undici is left out of the Lambda bundles \(client-node's fetch transport; .*\); see scripts\/esbuild-plugins\.cjs\n$/);
  });
});
