/**
 * Packages the project's serverless.yml offline (no AWS credentials, a throw-away HOME) with the
 * given `--param`s, from a scratch service folder (the yml copied, the sources linked), and returns
 * the CloudFormation template: osls and serverless-esbuild build in and delete `<service>/.serverless`
 * and `.esbuild`, so the project's own folders are never touched nor raced.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const root = resolve(import.meta.dirname, '../..');
const linkedFromProject = ['functions', 'lib', 'node_modules', 'package.json', 'scripts', 'tsconfig.json'];


/** A package `osls package` wrote: its CloudFormation template and zips under `packageDir`, and how long it took. */
export type PackagedService = { readonly template: Record<string, unknown>; readonly packageDir: string; readonly packageMs: number; readonly dispose: () => void };

/**
 * Packages with `params` (`name=value` each) into a scratch folder the caller removes with `dispose`
 * (its zips are read from `packageDir`); throws with osls's output on failure.
 */
export async function packageService(params: readonly string[] = []): Promise<PackagedService> {
  const scratch = mkdtempSync(join(tmpdir(), 'sls-package-'));
  const dispose = (): void => rmSync(scratch, { recursive: true, force: true });
  try {
    const service = join(scratch, 'service');
    mkdirSync(service);
    copyFileSync(join(root, 'serverless.yml'), join(service, 'serverless.yml'));
    for (const entry of linkedFromProject) symlinkSync(join(root, entry), join(service, entry));
    const packageDir = join(scratch, 'package');
    const args = [join(root, 'node_modules/osls/bin/serverless.js'), 'package', '--package', packageDir, ...params.map((p) => `--param=${p}`)];
    const started = Date.now();
    try {
      // A clean environment: no AWS credentials or profile, a throw-away HOME.
      await promisify(execFile)(process.execPath, args, {
        cwd: service,
        env: { PATH: process.env['PATH'] ?? '', HOME: join(scratch, 'home'), SLS_TELEMETRY_DISABLED: '1', SLS_NOTIFICATIONS_MODE: 'off', AWS_EC2_METADATA_DISABLED: 'true' },
        maxBuffer: 16 * 1024 * 1024,
      });
    } catch (error) {
      const { stdout, stderr } = error as { stdout?: string; stderr?: string };
      throw new Error(`osls package failed:\n${stdout ?? ''}\n${stderr ?? ''}`, { cause: error });
    }
    const packageMs = Date.now() - started;
    const template = JSON.parse(readFileSync(join(packageDir, 'cloudformation-template-update-stack.json'), 'utf8')) as Record<string, unknown>;
    return { template, packageDir, packageMs, dispose };
  } catch (error) {
    dispose();
    throw error;
  }
}

/** The template `osls package` writes with `params` (`name=value` each); throws with osls's output on failure. */
export async function packageTemplate(params: readonly string[] = []): Promise<Record<string, unknown>> {
  const packaged = await packageService(params);
  packaged.dispose();
  return packaged.template;
}
