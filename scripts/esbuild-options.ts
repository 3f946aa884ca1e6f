/**
 * serverless.yml, read the way `osls package` (serverless-esbuild) reads it: the `custom.esbuild`
 * block as esbuild options, and each function's handler file. `npm run build` and the bundle
 * benchmark both build from here, so neither can drift from what Lambda gets.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { BuildOptions, Plugin } from 'esbuild';
import { parseDocument } from 'yaml';

const ROOT = join(import.meta.dirname, '..');

type EsbuildBlock = Record<string, unknown>;

/** The keys of serverless-esbuild's block that are mapped to esbuild options. */
const MAPPED = ['bundle', 'minify', 'minifyWhitespace', 'minifySyntax', 'minifyIdentifiers', 'keepNames', 'sourcemap', 'target', 'platform', 'format', 'outputFileExtension', 'exclude', 'external', 'mainFields', 'plugins', 'banner'];

/**
 * serverless.yml's `custom.esbuild`, as esbuild options; throws on a key it does not know. Paths
 * (the plugins file, the working directory) are relative to the folder of `path`, as for osls.
 */
export function serverlessEsbuildOptions(path = join(ROOT, 'serverless.yml')): { options: BuildOptions; outExtension: string } {
  const block = (readServerlessYml(path) as { custom?: { esbuild?: EsbuildBlock } }).custom?.esbuild;
  if (!block) throw new Error('serverless.yml has no custom.esbuild block');
  const unknown = Object.keys(block).filter((k) => !MAPPED.includes(k));
  if (unknown.length > 0) throw new Error(`serverless.yml custom.esbuild has keys this build does not map: ${unknown.join(', ')}`);
  const list = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);
  const outExtension = typeof block.outputFileExtension === 'string' ? block.outputFileExtension : '.js';
  const options: BuildOptions = {
    bundle: block.bundle === true,
    minify: block.minify === true,
    ...(typeof block.minifyWhitespace === 'boolean' ? { minifyWhitespace: block.minifyWhitespace } : {}),
    ...(typeof block.minifySyntax === 'boolean' ? { minifySyntax: block.minifySyntax } : {}),
    ...(typeof block.minifyIdentifiers === 'boolean' ? { minifyIdentifiers: block.minifyIdentifiers } : {}),
    keepNames: block.keepNames === true,
    sourcemap: block.sourcemap as BuildOptions['sourcemap'],
    target: String(block.target),
    platform: block.platform as BuildOptions['platform'],
    format: block.format as BuildOptions['format'],
    // serverless-esbuild turns `exclude` into externals (and leaves them out of the zip).
    external: [...list(block.external), ...list(block.exclude)],
    ...(Array.isArray(block.mainFields) ? { mainFields: list(block.mainFields) } : {}),
    ...(typeof block.plugins === 'string' ? { plugins: loadPlugins(join(dirname(path), block.plugins)) } : {}),
    banner: block.banner as Record<string, string>,
    absWorkingDir: dirname(path),
    logLevel: 'silent',
  };
  return { options, outExtension };
}

/** The plugins a serverless-esbuild `plugins` file exports (an array, as serverless-esbuild requires it). */
function loadPlugins(file: string): Plugin[] {
  const plugins: unknown = createRequire(import.meta.url)(file);
  if (!Array.isArray(plugins)) throw new Error(`${file} must export an array of esbuild plugins`);
  return plugins as Plugin[];
}

/** One Lambda function of serverless.yml: its name and the source file its handler lives in. */
export type LambdaEntry = { readonly name: string; readonly entry: string; readonly exportName: string };

/** Every function of serverless.yml, `handler: functions/<name>.handler` → `functions/<name>.ts`, export `handler`. */
export function serverlessFunctions(path = join(ROOT, 'serverless.yml')): LambdaEntry[] {
  const functions = (readServerlessYml(path) as { functions?: Record<string, { handler?: unknown }> }).functions ?? {};
  return Object.entries(functions).map(([name, fn]) => {
    const handler = typeof fn.handler === 'string' ? fn.handler : '';
    const dot = handler.lastIndexOf('.');
    if (dot <= 0) throw new Error(`serverless.yml: functions.${name}.handler must be <file>.<export>, got ${JSON.stringify(fn.handler)}`);
    return { name, entry: `${handler.slice(0, dot)}.ts`, exportName: handler.slice(dot + 1) };
  });
}

/** The memory (MB) serverless.yml gives its functions: `provider.memorySize`, else the framework's default of 1024. */
export function serverlessMemorySize(path = join(ROOT, 'serverless.yml')): number {
  const size = (readServerlessYml(path) as { provider?: { memorySize?: unknown } }).provider?.memorySize;
  if (size === undefined) return 1024;
  if (typeof size !== 'number' || !Number.isInteger(size) || size < 128) throw new Error(`serverless.yml: provider.memorySize must be a whole number of MB ≥ 128, got ${JSON.stringify(size)}`);
  return size;
}

/**
 * The memory (MB) and architecture serverless.yml gives function `name`: its own `memorySize` and
 * `architecture` when set, else the provider's (else the framework's defaults, 1024 and x86_64).
 */
export function serverlessFunctionSizing(name: string, path = join(ROOT, 'serverless.yml')): { memoryMb: number; architecture: string } {
  const doc = readServerlessYml(path) as { params?: { default?: Record<string, unknown> }; provider?: { architecture?: unknown }; functions?: Record<string, { memorySize?: unknown; architecture?: unknown }> };
  const fn = doc.functions?.[name];
  if (fn === undefined) throw new Error(`serverless.yml: no function ${JSON.stringify(name)}`);
  // `${param:x}` is the default stage's value of parameter x.
  const param = typeof fn.memorySize === 'string' ? /^\$\{param:(\w+)\}$/.exec(fn.memorySize)?.[1] : undefined;
  const size = param === undefined ? (fn.memorySize ?? serverlessMemorySize(path)) : doc.params?.default?.[param];
  if (typeof size !== 'number' || !Number.isInteger(size) || size < 128) throw new Error(`serverless.yml: functions.${name}.memorySize must be a whole number of MB ≥ 128, got ${JSON.stringify(size)}`);
  const architecture = fn.architecture ?? doc.provider?.architecture ?? 'x86_64';
  return { memoryMb: size, architecture: String(architecture) };
}

function readServerlessYml(path: string): Record<string, unknown> {
  // CloudFormation tags (!Ref, !GetAtt, !Sub) are not YAML the parser knows; they only warn.
  const doc = parseDocument(readFileSync(path, 'utf8'));
  if (doc.errors.length > 0) throw new Error(`serverless.yml: ${doc.errors[0]?.message ?? 'invalid YAML'}`);
  return doc.toJS() as Record<string, unknown>;
}
