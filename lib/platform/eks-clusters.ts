/**
 * The registry of the EKS clusters one deployment manages (docs/adr/0027). `EKS_CLUSTERS` holds it
 * as a JSON array, one entry per cluster; unset, the single-cluster variables (`CLUSTER_NAME`,
 * `KUBE_ENDPOINT`, `KUBE_CA_DATA`, `AWS_REGION`) mean a registry of one entry, exactly as before
 * (`lambda-env.ts` reads them).
 * Parsing is pure and collects every problem, each naming its field (`EKS_CLUSTERS[1].endpoint: …`),
 * never echoing CA data. `endpoint` and `caData` may be left out together: the functions then ask EKS
 * DescribeCluster for them at cold start (`lib/eks/cluster-access.ts`), so an entry is ~60 bytes and
 * a full registry fits Lambda's 4 KB environment.
 */

import { quoteForEcho } from '../model/echo.js';

/**
 * How the functions authenticate to an EKS cluster. `iam-token`: a bearer token minted from the
 * function's own role (a presigned STS GetCallerIdentity, as aws-iam-authenticator and
 * `aws eks get-token` make it); the role must have an EKS access entry in that cluster
 * (https://docs.aws.amazon.com/eks/latest/userguide/access-entries.html).
 */
export type EksAuthentication = 'iam-token';

/** The authentication modes an entry may name. */
export const EKS_AUTHENTICATIONS: readonly EksAuthentication[] = ['iam-token'];

/**
 * One managed EKS cluster: `name` is the EKS cluster name (the first part of every key of its
 * TidbClusters, and the `x-k8s-aws-id` its tokens are minted for), `endpoint` its API server (https),
 * `caData` its base64 PEM CA, `region` where its tokens are signed (and where DescribeCluster is
 * asked). `endpoint` and `caData` are both set or both undefined (then resolved at cold start).
 */
export type EksClusterEntry = {
  readonly name: string;
  readonly endpoint?: string;
  readonly caData?: string;
  readonly region: string;
  readonly authentication: EksAuthentication;
};

/** An entry whose `endpoint` and `caData` are known (given, or read from DescribeCluster). */
export type ResolvedEksCluster = EksClusterEntry & { readonly endpoint: string; readonly caData: string };

/** Whether `entry` names its endpoint and CA itself (else DescribeCluster must give them). */
export function isResolved(entry: EksClusterEntry): entry is ResolvedEksCluster {
  return entry.endpoint !== undefined && entry.caData !== undefined;
}

/** The variable holding the registry. */
export const EKS_CLUSTERS_ENV = 'EKS_CLUSTERS';

/** The most clusters one registry may hold: every process keeps clients for each. */
export const MAX_EKS_CLUSTERS = 50;

/**
 * The most bytes `EKS_CLUSTERS` may hold: Lambda refuses a function whose environment variables
 * total more than 4 KB ("The total size of all environment variables doesn't exceed 4 KB",
 * https://docs.aws.amazon.com/lambda/latest/dg/configuration-envvars.html), so a larger value could
 * never deploy; refusing it here names the cause rather than CloudFormation's update failure.
 */
export const MAX_EKS_CLUSTERS_BYTES = 4096;

/** The parsed registry, or every problem found (one line each, naming the field). */
export type EksClustersResult = { readonly ok: true; readonly clusters: readonly EksClusterEntry[] } | { readonly ok: false; readonly problems: readonly string[] };

// EKS cluster names: 1-100 characters, a letter or digit first, then letters, digits, '-' and '_'
// (CreateCluster's `name` pattern `^[0-9A-Za-z][A-Za-z0-9\-_]*`); dots are allowed too, as cluster keys allow them.
const CLUSTER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
const REGION = /^[a-z]{2}(-[a-z]+)+-\d+$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const FIELDS = ['name', 'endpoint', 'caData', 'region', 'authentication'];

/**
 * Reads the registry from `env`: undefined when `EKS_CLUSTERS` is unset or empty (the caller reads
 * the single-cluster variables as before). Set: its entries (at least one, names unique, `region`
 * defaulting to `AWS_REGION`), and any single-cluster variable set beside it is a problem (one
 * deployment, one way to say it).
 */
export function parseEksClusters(env: Readonly<Record<string, string | undefined>>): EksClustersResult | undefined {
  const raw = env[EKS_CLUSTERS_ENV]?.trim() ?? '';
  if (raw === '') return undefined;
  const problems: string[] = [];
  const bytes = Buffer.byteLength(raw, 'utf8');
  if (bytes > MAX_EKS_CLUSTERS_BYTES) {
    problems.push(`${EKS_CLUSTERS_ENV}: ${bytes} bytes, above Lambda's 4 KB limit for all environment variables; leave out endpoint and caData (they are read from EKS DescribeCluster at start)`);
  }
  const beside = ['CLUSTER_NAME', 'KUBE_ENDPOINT', 'KUBE_CA_DATA'].filter((name) => (env[name]?.trim() ?? '') !== '');
  if (beside.length > 0) problems.push(`${EKS_CLUSTERS_ENV}: set together with ${beside.join(', ')}; name every cluster in ${EKS_CLUSTERS_ENV} and unset those`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (cause) {
    return { ok: false, problems: [...problems, `${EKS_CLUSTERS_ENV}: not valid JSON (${cause instanceof Error ? cause.message : String(cause)})`] };
  }
  if (!Array.isArray(parsed) || parsed.length === 0) return { ok: false, problems: [...problems, `${EKS_CLUSTERS_ENV}: must be a non-empty JSON array of {name, endpoint, caData, region, authentication}`] };
  if (parsed.length > MAX_EKS_CLUSTERS) problems.push(`${EKS_CLUSTERS_ENV}: ${parsed.length} entries, above the maximum of ${MAX_EKS_CLUSTERS}`);
  const clusters = parsed.map((entry, i) => readEntry(entry, `${EKS_CLUSTERS_ENV}[${i}]`, env['AWS_REGION']?.trim(), problems));
  const names = clusters.map((c) => c.name);
  const repeated = names.find((n, i) => n !== '' && names.indexOf(n) !== i);
  if (repeated !== undefined) problems.push(`${EKS_CLUSTERS_ENV}[${names.lastIndexOf(repeated)}].name: ${quoteForEcho(repeated)} is registered twice`);
  return problems.length > 0 ? { ok: false, problems } : { ok: true, clusters };
}

function readEntry(entry: unknown, at: string, defaultRegion: string | undefined, problems: string[]): EksClusterEntry {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
    problems.push(`${at}: must be an object {name, endpoint, caData, region, authentication}`);
    return { name: '', region: '', authentication: 'iam-token' };
  }
  const fields = entry as Record<string, unknown>;
  for (const key of Object.keys(fields)) if (!FIELDS.includes(key)) problems.push(`${at}.${key}: not a field of a cluster entry (${FIELDS.join(', ')})`);
  const text = (field: string, required: boolean): string => {
    const value = fields[field];
    if (value === undefined && !required) return '';
    if (typeof value !== 'string' || value.trim() === '') {
      problems.push(`${at}.${field}: ${value === undefined ? 'missing' : 'must be a non-empty string'}`);
      return '';
    }
    return value.trim();
  };
  const name = text('name', true);
  if (name !== '' && !CLUSTER_NAME.test(name)) problems.push(`${at}.name: ${quoteForEcho(name)} is not an EKS cluster name (1-100 letters, digits, '.', '_', '-', starting with a letter or digit)`);
  // Both or neither: with neither, DescribeCluster gives both; one alone is a half-pasted entry.
  const resolveAtStart = fields['endpoint'] === undefined && fields['caData'] === undefined;
  const endpoint = text('endpoint', !resolveAtStart);
  if (endpoint !== '' && !isHttpsUrl(endpoint)) problems.push(`${at}.endpoint: ${quoteForEcho(endpoint)} must be an https URL`);
  const caData = text('caData', !resolveAtStart);
  // Never echo the CA itself: say only what is wrong with it.
  if (caData !== '' && !BASE64.test(caData)) problems.push(`${at}.caData: must be base64 (the cluster's certificateAuthority.data)`);
  const region = text('region', false) || (defaultRegion ?? '');
  if (region === '') problems.push(`${at}.region: missing (and AWS_REGION is not set)`);
  else if (!REGION.test(region)) problems.push(`${at}.region: ${quoteForEcho(region)} is not an AWS region (e.g. us-east-1)`);
  const auth = fields['authentication'] ?? 'iam-token';
  const authentication = EKS_AUTHENTICATIONS.find((a) => a === auth);
  if (authentication === undefined) problems.push(`${at}.authentication: ${typeof auth === 'string' ? quoteForEcho(auth) : 'not a string'} must be one of ${EKS_AUTHENTICATIONS.join(', ')}`);
  return { name, ...(resolveAtStart ? {} : { endpoint, caData }), region, authentication: authentication ?? 'iam-token' };
}

function isHttpsUrl(text: string): boolean {
  try {
    return new URL(text).protocol === 'https:';
  } catch {
    return false;
  }
}
