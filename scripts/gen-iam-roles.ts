/**
 * Writes infra/iam/roles.json, the IAM of the packaged CloudFormation template (lib/local/iam/extract.ts):
 * the roles the local world enforces (`npm start`, `simulate`, the integration suites). Packages the
 * project offline in a scratch folder (as test/integration/serverless-package.test.ts does), or reads
 * the template given as the first argument. With `--eks-clusters`, writes
 * infra/iam/roles-eks-clusters.json instead: the template packaged with a registry (`eksClusters`,
 * `eksClusterArns`) whose values are placeholders the local world fills with its clusters
 * (lib/local/iam/eks-clusters-extract.ts).
 *
 * Run after changing a role in serverless.yml: npx tsx scripts/gen-iam-roles.ts [--eks-clusters] [cloudformation-template-update-stack.json]
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { extractIam } from '../lib/local/iam/extract.js';
import { EKS_CLUSTER_ARNS_PLACEHOLDER, EKS_CLUSTERS_PLACEHOLDER, EKS_CLUSTERS_EXTRACT_PATH } from '../lib/local/iam/eks-clusters-extract.js';

const ROOT = join(import.meta.dirname, '..');
/** Where the extract is kept. */
export const IAM_EXTRACT_PATH = join(ROOT, 'infra', 'iam', 'roles.json');
const LINKED = ['functions', 'lib', 'node_modules', 'package.json', 'scripts', 'tsconfig.json'];

function packagedTemplate(params: readonly string[]): string {
  const scratch = mkdtempSync(join(tmpdir(), 'gen-iam-'));
  try {
    const service = join(scratch, 'service');
    mkdirSync(service);
    copyFileSync(join(ROOT, 'serverless.yml'), join(service, 'serverless.yml'));
    for (const entry of LINKED) symlinkSync(join(ROOT, entry), join(service, entry));
    const out = join(scratch, 'package');
    execFileSync(process.execPath, [join(ROOT, 'node_modules/osls/bin/serverless.js'), 'package', '--package', out, ...params.map((p) => `--param=${p}`)], {
      cwd: service,
      env: { PATH: process.env['PATH'] ?? '', HOME: join(scratch, 'home'), SLS_TELEMETRY_DISABLED: '1', SLS_NOTIFICATIONS_MODE: 'off', AWS_EC2_METADATA_DISABLED: 'true' },
      stdio: ['ignore', 'ignore', 'inherit'],
      timeout: 300_000,
    });
    return readFileSync(join(out, 'cloudformation-template-update-stack.json'), 'utf8');
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const eksClusters = process.argv.includes('--eks-clusters');
const given = process.argv.slice(2).find((arg) => arg !== '--eks-clusters');
const params = eksClusters ? [`eksClusters=${EKS_CLUSTERS_PLACEHOLDER}`, `eksClusterArns=${EKS_CLUSTER_ARNS_PLACEHOLDER}`] : [];
const template = JSON.parse(given ? readFileSync(given, 'utf8') : packagedTemplate(params)) as Parameters<typeof extractIam>[0];
const path = eksClusters ? EKS_CLUSTERS_EXTRACT_PATH : IAM_EXTRACT_PATH;
writeFileSync(path, `${JSON.stringify(extractIam(template), null, 2)}\n`);
console.log(`wrote ${path}`);
