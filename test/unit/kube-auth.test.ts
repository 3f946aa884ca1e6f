import { describe, expect, it } from '@jest/globals';
import { createHash, createHmac } from 'node:crypto';
import { RequestContext } from '@kubernetes/client-node';
import { EKS_TOKEN_MAX_AGE_MS, EksTokenSource, credentialsFromEnv, eksKubeConfig, mintEksToken } from '../../lib/kube/auth.js';
import { type Clock, VirtualClock } from '../../lib/platform/clock.js';
import { TerminalError } from '../../lib/platform/errors.js';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const CREDS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY', sessionToken: 'FAKE/SESSION+TOKEN==' };

function decode(token: string): URL {
  return new URL(Buffer.from(token.slice('k8s-aws-v1.'.length), 'base64url').toString('utf8'));
}

/** RFC 3986 encoding as SigV4 wants it (encodeURIComponent leaves !'()* alone). */
function rfc3986(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** SigV4 query presigning written out from the spec, to check the library's signature independently. */
function expectedSignature(url: URL, clusterName: string, secret: string): string {
  const params = [...url.searchParams.entries()].filter(([k]) => k !== 'X-Amz-Signature').sort(([a], [b]) => (a < b ? -1 : 1));
  const query = params.map(([k, v]) => `${rfc3986(k)}=${rfc3986(v)}`).join('&');
  const headers = `host:${url.hostname}\nx-k8s-aws-id:${clusterName}\n`;
  const emptyHash = createHash('sha256').update('').digest('hex');
  const canonical = ['GET', '/', query, headers, 'host;x-k8s-aws-id', emptyHash].join('\n');
  const amzDate = url.searchParams.get('X-Amz-Date') ?? '';
  const scope = (url.searchParams.get('X-Amz-Credential') ?? '').split('/').slice(1).join('/');
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, createHash('sha256').update(canonical).digest('hex')].join('\n');
  const [date, region, service] = scope.split('/');
  let key: Buffer = createHmac('sha256', `AWS4${secret}`).update(date ?? '').digest();
  for (const part of [region ?? '', service ?? '', 'aws4_request']) key = createHmac('sha256', key).update(part).digest();
  return createHmac('sha256', key).update(toSign).digest('hex');
}

describe('EKS bearer token', () => {
  it('is k8s-aws-v1. plus unpadded base64url of a presigned STS GetCallerIdentity URL', async () => {
    // Act
    const token = await mintEksToken({ clusterName: 'prod-eks', region: 'us-east-1', credentials: CREDS, nowMs: NOW });
    // Assess
    const url = decode(token);
    const decoded = decodeURIComponent(url.toString());
    expect(token.startsWith('k8s-aws-v1.')).toBe(true);
    expect(token).not.toContain('=');
    expect(url.origin + url.pathname).toBe('https://sts.us-east-1.amazonaws.com/');
    for (const part of ['Action=GetCallerIdentity', 'Version=2011-06-15', 'X-Amz-Expires=60', 'X-Amz-SignedHeaders=host;x-k8s-aws-id']) expect(decoded).toContain(part);
    expect(url.searchParams.get('X-Amz-Algorithm')).toBe('AWS4-HMAC-SHA256');
    expect(url.searchParams.get('X-Amz-Date')).toBe('20261122T120000Z');
    expect(url.searchParams.get('X-Amz-Credential')).toBe('AKIDEXAMPLE/20261122/us-east-1/sts/aws4_request');
    expect(url.searchParams.get('X-Amz-Security-Token')).toBe(CREDS.sessionToken);
  });

  it('carries a signature that matches SigV4 computed by hand, including the signed cluster header', async () => {
    const token = await mintEksToken({ clusterName: 'prod-eks', region: 'eu-west-1', credentials: CREDS, nowMs: NOW });
    const url = decode(token);
    expect(url.searchParams.get('X-Amz-Signature')).toBe(expectedSignature(url, 'prod-eks', CREDS.secretAccessKey));
    expect(url.searchParams.get('X-Amz-Signature')).not.toBe(expectedSignature(url, 'other-cluster', CREDS.secretAccessKey));
  });

  it('stays under the authenticator limit of 4 KiB and does not contain the secret key', async () => {
    const token = await mintEksToken({ clusterName: 'prod-eks', region: 'us-east-1', credentials: CREDS, nowMs: NOW });
    expect(token.length).toBeLessThan(4096);
    expect(decode(token).toString()).not.toContain(encodeURIComponent(CREDS.secretAccessKey));
  });
});

describe('token reuse', () => {
  function source(maxAgeMs?: number) {
    const clock = new VirtualClock(NOW);
    let mints = 0;
    const tokens = new EksTokenSource({
      clusterName: 'prod-eks',
      region: 'us-east-1',
      clock,
      credentials: () => {
        mints++;
        return CREDS;
      },
      ...(maxAgeMs !== undefined ? { maxAgeMs } : {}),
    });
    return { clock, tokens, mints: () => mints };
  }

  it.each([
    { name: 'a token is reused within 10 minutes', advanceMs: EKS_TOKEN_MAX_AGE_MS - 1, same: true },
    { name: 'a token is re-minted at 10 minutes', advanceMs: EKS_TOKEN_MAX_AGE_MS, same: false },
    { name: 'a token is re-minted when the clock went backwards', advanceMs: -1000, same: false },
  ])('$name', async ({ advanceMs, same }) => {
    // Prepare: a clock that can also be set backwards
    let nowMs = NOW;
    const clock: Clock = { nowMs: () => nowMs, setTimer: () => ({ id: 0 }), clearTimer: () => undefined, sleep: async () => undefined };
    const tokens = new EksTokenSource({ clusterName: 'prod-eks', region: 'us-east-1', clock, credentials: () => CREDS });
    const first = await tokens.token();
    // Act
    nowMs = NOW + advanceMs;
    const second = await tokens.token();
    // Assess
    expect(second === first).toBe(same);
  });

  it('a longer maximum age is capped at 10 minutes', async () => {
    const { clock, tokens, mints } = source(60 * 60_000);
    await tokens.token();
    await clock.advance(EKS_TOKEN_MAX_AGE_MS);
    await tokens.token();
    expect(mints()).toBe(2);
  });

  it('concurrent callers share one mint', async () => {
    const { tokens, mints } = source();
    const all = await Promise.all([tokens.token(), tokens.token(), tokens.token()]);
    expect(new Set(all).size).toBe(1);
    expect(mints()).toBe(1);
  });
});

describe('credentials and the Lambda KubeConfig', () => {
  it('credentials come from the Lambda environment variables', () => {
    const env = { AWS_ACCESS_KEY_ID: 'AKID', AWS_SECRET_ACCESS_KEY: 'secret', AWS_SESSION_TOKEN: 'session' };
    expect(credentialsFromEnv(env)).toEqual({ accessKeyId: 'AKID', secretAccessKey: 'secret', sessionToken: 'session' });
    expect(credentialsFromEnv({ AWS_ACCESS_KEY_ID: 'AKID', AWS_SECRET_ACCESS_KEY: 'secret' })).toEqual({ accessKeyId: 'AKID', secretAccessKey: 'secret' });
  });

  it.each([
    { name: 'a missing access key id is terminal and named', env: { AWS_SECRET_ACCESS_KEY: 'very-secret' }, missing: 'AWS_ACCESS_KEY_ID' },
    { name: 'a missing secret key is terminal and named', env: { AWS_ACCESS_KEY_ID: 'AKID' }, missing: 'AWS_SECRET_ACCESS_KEY' },
  ])('$name', ({ env, missing }) => {
    const err = (() => {
      try {
        credentialsFromEnv(env);
        return undefined;
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(TerminalError);
    expect((err as Error).message).toContain(missing);
    expect((err as Error).message).not.toContain('very-secret');
  });

  it('every request through the EKS KubeConfig carries a fresh bearer token and the CA', async () => {
    const clock = new VirtualClock(NOW);
    const tokens = new EksTokenSource({ clusterName: 'prod-eks', region: 'us-east-1', clock, credentials: () => CREDS });
    const kubeConfig = eksKubeConfig({ endpoint: 'https://ABC.gr7.us-east-1.eks.amazonaws.com', caData: Buffer.from('-----BEGIN CERTIFICATE-----').toString('base64'), tokens, clusterName: 'prod-eks' });
    const ctx = new RequestContext('https://ABC.gr7.us-east-1.eks.amazonaws.com/api/v1/pods', 'GET');
    await kubeConfig.applySecurityAuthentication(ctx);
    expect(ctx.getHeaders().Authorization).toBe(`Bearer ${await tokens.token()}`);
    expect(ctx.getHeaders().Authorization?.startsWith('Bearer k8s-aws-v1.')).toBe(true);
    expect(ctx.getDispatcher()).toBeDefined();
    expect(kubeConfig.getCurrentCluster()).toMatchObject({ server: 'https://ABC.gr7.us-east-1.eks.amazonaws.com', skipTLSVerify: false });
  });
});
