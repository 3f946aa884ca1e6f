/**
 * Where the KubeConfig comes from. Locally: a kubeconfig file (or the default lookup), as kubectl
 * uses. On Lambda: the cluster endpoint and CA from configuration, and a bearer token minted from
 * the function's own credentials (as aws-iam-authenticator and `aws eks get-token` make it): a presigned STS GetCallerIdentity URL
 * with the signed header `x-k8s-aws-id: <cluster>`, as aws-iam-authenticator builds it. Tokens are
 * valid 15 minutes after signing; we reuse one for at most 10, so a warm container never sends an
 * expired one (aws-iam-authenticator#316: EKS tokens expire after 15 minutes). The token is a credential: it is never logged or put in an error.
 */
import { Sha256 } from '@aws-crypto/sha256-js';
// The KubeConfig module alone, not the package index (which loads every generated API and model).
import { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import type { User } from '@kubernetes/client-node/dist/config_types.js';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity } from '@smithy/types';
import type { Clock } from '../platform/clock.js';
import { TerminalError } from '../platform/errors.js';
import type { RefreshableCredentials } from './http.js';

/** The prefix aws-iam-authenticator expects in front of the base64url presigned URL. */
export const EKS_TOKEN_PREFIX = 'k8s-aws-v1.';
/** How long we reuse a minted token (STS accepts it for 15 min after signing). */
export const EKS_TOKEN_MAX_AGE_MS = 10 * 60_000;
/** `X-Amz-Expires` as the reference clients send it; the server applies its own 15 minutes. */
const PRESIGN_EXPIRES_SECONDS = 60;

/** Supplies AWS credentials when a token is minted (called again for every new token). */
export type CredentialProvider = () => Promise<AwsCredentialIdentity> | AwsCredentialIdentity;

/**
 * Credentials from the Lambda environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and, for a role,
 * AWS_SESSION_TOKEN). A missing variable is a `TerminalError` naming it, never showing any value.
 */
export function credentialsFromEnv(env: NodeJS.ProcessEnv = process.env): AwsCredentialIdentity {
  const accessKeyId = env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY;
  if (!accessKeyId) throw new TerminalError('AWS_ACCESS_KEY_ID is not set', { field: 'AWS_ACCESS_KEY_ID' });
  if (!secretAccessKey) throw new TerminalError('AWS_SECRET_ACCESS_KEY is not set', { field: 'AWS_SECRET_ACCESS_KEY' });
  const sessionToken = env.AWS_SESSION_TOKEN;
  return sessionToken ? { accessKeyId, secretAccessKey, sessionToken } : { accessKeyId, secretAccessKey };
}

/** What a token is minted for: the EKS cluster's name (not its ARN) and the STS region. */
export type EksTokenRequest = { clusterName: string; region: string; credentials: AwsCredentialIdentity; nowMs: number };

/** Mints one EKS bearer token: `k8s-aws-v1.` + unpadded base64url of the presigned STS URL. */
export async function mintEksToken(req: EksTokenRequest): Promise<string> {
  const hostname = `sts.${req.region}.amazonaws.com`;
  const signer = new SignatureV4({ credentials: req.credentials, region: req.region, service: 'sts', sha256: Sha256 });
  const request = new HttpRequest({
    method: 'GET',
    protocol: 'https:',
    hostname,
    path: '/',
    headers: { host: hostname, 'x-k8s-aws-id': req.clusterName },
    query: { Action: 'GetCallerIdentity', Version: '2011-06-15' },
  });
  const signed = await signer.presign(request, { expiresIn: PRESIGN_EXPIRES_SECONDS, signingDate: new Date(req.nowMs) });
  const query = Object.entries(signed.query ?? {})
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
    .join('&');
  // Buffer's base64url omits the `=` padding, as the authenticator requires.
  return EKS_TOKEN_PREFIX + Buffer.from(`https://${hostname}${signed.path}?${query}`).toString('base64url');
}

/** Options of `EksTokenSource`. */
export type EksTokenSourceOptions = {
  clusterName: string;
  region: string;
  credentials: CredentialProvider;
  clock: Clock;
  /** At most `EKS_TOKEN_MAX_AGE_MS`; shorter is allowed (tests, stricter policies). */
  maxAgeMs?: number;
};

/** Mints tokens on demand and reuses each for at most `maxAgeMs` of the given clock. */
export class EksTokenSource {
  private cached: { token: string; mintedAtMs: number } | undefined;
  private pending: Promise<string> | undefined;
  private readonly maxAgeMs: number;

  constructor(private readonly options: EksTokenSourceOptions) {
    this.maxAgeMs = Math.min(options.maxAgeMs ?? EKS_TOKEN_MAX_AGE_MS, EKS_TOKEN_MAX_AGE_MS);
  }

  /** A token younger than `maxAgeMs`; concurrent callers share one mint. */
  async token(): Promise<string> {
    const nowMs = this.options.clock.nowMs();
    if (this.cached && nowMs - this.cached.mintedAtMs < this.maxAgeMs && nowMs >= this.cached.mintedAtMs) return this.cached.token;
    this.pending ??= this.mint(nowMs).finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  /**
   * Forgets the cached token if it is `token` (the API server refused it: 401), so the next
   * `token()` mints a fresh one; a token already replaced is left alone.
   */
  drop(token: string): void {
    if (this.cached?.token === token) this.cached = undefined;
  }

  private async mint(nowMs: number): Promise<string> {
    const credentials = await this.options.credentials();
    const token = await mintEksToken({ clusterName: this.options.clusterName, region: this.options.region, credentials, nowMs });
    this.cached = { token, mintedAtMs: nowMs };
    return token;
  }
}

/** The auth-provider name our authenticator answers to in the generated KubeConfig. */
const EKS_AUTH_PROVIDER = 'tidb-reconciler-eks';

/** Where an EKS cluster is: its API endpoint and base64 PEM CA, as eks:DescribeCluster returns them. */
export type EksClusterAccess = { endpoint: string; caData: string; tokens: EksTokenSource; clusterName: string };

/**
 * A KubeConfig for an EKS cluster whose every request (API calls, watches, proxy calls) asks
 * `tokens` for the Authorization header, so one long-lived KubeConfig keeps sending fresh tokens.
 */
export function eksKubeConfig(access: EksClusterAccess): KubeConfig {
  const kubeConfig = new EksKubeConfig(access.tokens);
  kubeConfig.addAuthenticator({
    isAuthProvider: (user: User) => (user.authProvider as { name?: unknown } | undefined)?.name === EKS_AUTH_PROVIDER,
    applyAuthentication: async (_user: User, opts: { headers?: unknown }) => {
      const headers = (opts.headers ?? {}) as Record<string, string>;
      headers.Authorization = `Bearer ${await access.tokens.token()}`;
      opts.headers = headers;
    },
  });
  kubeConfig.loadFromOptions({
    clusters: [{ name: access.clusterName, server: access.endpoint, caData: access.caData, skipTLSVerify: false }],
    users: [{ name: 'lambda', authProvider: { name: EKS_AUTH_PROVIDER, config: {} } }],
    contexts: [{ name: access.clusterName, cluster: access.clusterName, user: 'lambda' }],
    currentContext: access.clusterName,
  });
  return kubeConfig;
}

/** A KubeConfig whose EKS token `KubeHttp` drops after a 401 (see `RefreshableCredentials`). */
class EksKubeConfig extends KubeConfig implements RefreshableCredentials {
  constructor(private readonly tokens: EksTokenSource) {
    super();
  }

  dropCachedCredentials(authorization: string | undefined): void {
    if (authorization?.startsWith('Bearer ')) this.tokens.drop(authorization.slice('Bearer '.length));
  }
}

/**
 * A KubeConfig from a kubeconfig file (`npm start`, `sim serve --kubeconfig`), or from the default
 * lookup (KUBECONFIG, ~/.kube/config, in-cluster) without a path; `context` overrides the current one.
 */
export function kubeConfigFromFile(path?: string, context?: string): KubeConfig {
  const kubeConfig = new KubeConfig();
  if (path) kubeConfig.loadFromFile(path);
  else kubeConfig.loadFromDefault();
  if (context) kubeConfig.setCurrentContext(context);
  return kubeConfig;
}
