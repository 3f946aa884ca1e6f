/**
 * The EC2 port over EC2's Query API (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/Query-Requests.html):
 * a form-encoded `POST /` with `Action` and `Version=2016-11-15`, signed with SigV4 (service `ec2`),
 * answered in XML. Only the two calls of the EBS modifier, so the reconcile bundle carries no EC2
 * SDK. Every call has a timeout; a throttle, a 5xx or a network failure is retried within it by the
 * project's retry loop (lib/platform/retry.ts: full jitter on the injected clock, no wait past the
 * call's deadline). Errors are EC2's `<Response><Errors><Error><Code>…` answers
 * (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/errors-overview.html).
 */

import { Sha256 } from '@aws-crypto/sha256-js';
import { parseXML } from '@aws-sdk/xml-builder';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';

import { RealClock, type Clock } from '../platform/clock.js';
import { TransientError } from '../platform/errors.js';
import { withRetries, type RetryPolicy } from '../platform/retry.js';
import { Ec2Error, Ec2RequestError, MODIFICATION_NOT_FOUND, type Ec2ModificationState, type Ec2VolumeModification, type Ec2VolumeTarget, type Ec2Volumes } from './port.js';

/** The EC2 API version of the Query API. */
export const EC2_API_VERSION = '2016-11-15';

/** One HTTP exchange: the signed request out, the status and body back (the port the tests inject). */
export type Ec2Transport = (request: { url: string; method: 'POST'; headers: Record<string, string>; body: string; signal: AbortSignal }) => Promise<{ status: number; body: string }>;

/** What the client needs: where EC2 is, who signs, and how long one call may take. */
export type Ec2ClientOptions = {
  readonly region: string;
  /** Default `https://ec2.<region>.amazonaws.com`; the world's endpoint locally. */
  readonly endpoint?: string;
  readonly credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  /** Whole-call timeout, retries included (default 10 s). */
  readonly timeoutMs?: number;
  /** Attempts per call (default 3). */
  readonly maxAttempts?: number;
  /** The clock retry waits run on (default the real one; a simulation's virtual one). */
  readonly clock?: Clock;
  /** Uniform in [0, 1): the retry waits' jitter (seeded in simulations; default Math.random). */
  readonly random?: () => number;
  readonly transport?: Ec2Transport;
  /** The signing time (tests fix it). */
  readonly now?: () => Date;
};

/** EC2 codes a retry cannot fix: a wrong request, a missing volume, a missing permission. */
const REQUEST_ERRORS = new Set(['UnauthorizedOperation', 'AuthFailure', 'InvalidParameterValue', 'InvalidParameterCombination', 'MissingParameter', 'InvalidVolume.NotFound', 'InvalidVolumeID.Malformed', 'InvalidAction', 'OptInRequired']);

const fetchTransport: Ec2Transport = async ({ url, method, headers, body, signal }) => {
  const res = await fetch(url, { method, headers, body, signal });
  return { status: res.status, body: await res.text() };
};

/** `Ec2Volumes` over the Query API (see the module comment). */
export class Ec2QueryClient implements Ec2Volumes {
  private readonly signer: SignatureV4;
  private readonly endpoint: URL;
  private readonly transport: Ec2Transport;

  constructor(private readonly options: Ec2ClientOptions) {
    this.signer = new SignatureV4({ credentials: options.credentials, region: options.region, service: 'ec2', sha256: Sha256 });
    this.endpoint = new URL(options.endpoint ?? `https://ec2.${options.region}.amazonaws.com`);
    this.transport = options.transport ?? fetchTransport;
  }

  async describeVolumesModifications(volumeIds: readonly string[], signal?: AbortSignal): Promise<Ec2VolumeModification[]> {
    const params: Record<string, string> = {};
    volumeIds.forEach((id, i) => (params[`VolumeId.${i + 1}`] = id));
    try {
      const doc = await this.call('DescribeVolumesModifications', params, signal);
      return itemsOf(doc['volumeModificationSet']).map(modificationOf);
    } catch (err) {
      if (err instanceof Ec2Error && err.code === MODIFICATION_NOT_FOUND) return [];
      throw err;
    }
  }

  async modifyVolume(target: Ec2VolumeTarget, signal?: AbortSignal): Promise<Ec2VolumeModification> {
    const params: Record<string, string> = { VolumeId: target.volumeId };
    if (target.sizeGiB !== undefined) params['Size'] = String(target.sizeGiB);
    if (target.iops !== undefined) params['Iops'] = String(target.iops);
    if (target.throughput !== undefined) params['Throughput'] = String(target.throughput);
    if (target.volumeType !== undefined) params['VolumeType'] = target.volumeType;
    const doc = await this.call('ModifyVolume', params, signal);
    const m = doc['volumeModification'];
    if (typeof m !== 'object' || m === null) throw new TransientError('EC2 ModifyVolume: the answer has no volumeModification');
    return modificationOf(m);
  }

  /** One signed call with retries within the timeout; the parsed `<ActionResponse>` element. */
  private async call(action: string, params: Record<string, string>, outer?: AbortSignal): Promise<Record<string, unknown>> {
    const timeoutMs = this.options.timeoutMs ?? 10_000;
    const signal = outer ? AbortSignal.any([outer, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs);
    const clock = this.options.clock ?? new RealClock();
    const policy: RetryPolicy = { attempts: this.options.maxAttempts ?? 3, baseMs: 200, capMs: 2_000 };
    const retry = { policy, clock, random: this.options.random ?? Math.random, deadlineAtMs: clock.nowMs() + timeoutMs };
    try {
      return await withRetries(retry, { isRetryable: (err) => !signal.aborted && isRetryable(err) }, () => this.once(action, params, signal));
    } catch (err) {
      if (signal.aborted) throw new TransientError(`EC2 ${action}: no answer within ${timeoutMs} ms`, { cause: err });
      throw err;
    }
  }

  private async once(action: string, params: Record<string, string>, signal: AbortSignal): Promise<Record<string, unknown>> {
    const body = new URLSearchParams({ Action: action, Version: EC2_API_VERSION, ...params }).toString();
    const { hostname, port, protocol, pathname } = this.endpoint;
    const host = port ? `${hostname}:${port}` : hostname;
    const request = new HttpRequest({ method: 'POST', protocol, hostname, ...(port ? { port: Number(port) } : {}), path: pathname || '/', headers: { host, 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' }, body });
    const signed = await this.signer.sign(request, this.options.now ? { signingDate: this.options.now() } : {});
    const headers = Object.fromEntries(Object.entries(signed.headers).filter(([k]) => k !== 'host'));
    let answer: { status: number; body: string };
    try {
      answer = await this.transport({ url: `${protocol}//${host}${pathname || '/'}`, method: 'POST', headers, body, signal });
    } catch (err) {
      throw new TransientError(`EC2 ${action}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    return answerOf(action, answer);
  }
}

/** The `<ActionResponse>` of a 2xx answer; EC2's error otherwise (see `errorOf`). */
export function answerOf(action: string, answer: { status: number; body: string }): Record<string, unknown> {
  if (answer.status < 200 || answer.status >= 300) throw errorOf(action, answer);
  const doc = parseXML(answer.body) as Record<string, unknown>;
  const root = doc[`${action}Response`];
  if (typeof root !== 'object' || root === null) throw new TransientError(`EC2 ${action}: unexpected answer ${answer.body.slice(0, 200)}`);
  return root as Record<string, unknown>;
}

/** The typed error of an EC2 error answer: `Ec2RequestError` for a code a retry cannot fix, else `Ec2Error`. */
export function errorOf(action: string, answer: { status: number; body: string }): Error {
  let code = '';
  let message = '';
  try {
    const doc = parseXML(answer.body) as { Response?: { Errors?: { Error?: unknown } } };
    const first = itemsOf(doc.Response?.Errors?.Error ?? doc.Response?.Errors)[0] as { Code?: string; Message?: string } | undefined;
    code = String(first?.Code ?? '');
    message = String(first?.Message ?? '');
  } catch {
    // Not XML (a proxy's page): the status says it all.
  }
  if (code === '') return new TransientError(`EC2 ${action}: HTTP ${answer.status} ${answer.body.slice(0, 200)}`);
  return REQUEST_ERRORS.has(code) ? new Ec2RequestError(code, message, answer.status) : new Ec2Error(code, message, answer.status);
}

/** The items of an EC2 list element (`<set><item/>…</set>`, or a bare repeated element). */
function itemsOf(set: unknown): unknown[] {
  if (set === undefined || set === null || set === '') return [];
  const items = typeof set === 'object' && 'item' in set ? (set as { item: unknown }).item : set;
  return Array.isArray(items) ? items : [items];
}

const STATES: readonly Ec2ModificationState[] = ['modifying', 'optimizing', 'completed', 'failed'];

function modificationOf(raw: unknown): Ec2VolumeModification {
  const m = raw as Record<string, string | undefined>;
  const state = STATES.find((s) => s === m['modificationState']);
  if (state === undefined) throw new TransientError(`EC2: unknown modificationState ${String(m['modificationState'])}`);
  const num = (key: string): number | undefined => (m[key] === undefined || m[key] === '' ? undefined : Number(m[key]));
  return {
    volumeId: String(m['volumeId'] ?? ''),
    state,
    ...optional('sizeGiB', num('targetSize')),
    ...optional('iops', num('targetIops')),
    ...optional('throughput', num('targetThroughput')),
    ...optional('volumeType', m['targetVolumeType']),
    ...optional('startTime', m['startTime']),
  };
}

const optional = <K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> => (value === undefined ? {} : ({ [key]: value } as Record<K, V>));

function isRetryable(err: unknown): boolean {
  if (err instanceof Ec2RequestError) return false;
  if (err instanceof Ec2Error) return err.httpStatus >= 500 || err.code === 'RequestLimitExceeded' || err.code === 'Unavailable' || err.code === 'InternalError';
  return err instanceof TransientError;
}
