/**
 * The simulated S3 the backup Job pods reach (and nothing else: the reconciler's functions have no
 * S3 port). Buckets hold objects by key; a caller is identified by an access key pair (an S3 Secret
 * the pod's env names) or by an IAM role (IRSA / EKS Pod Identity through its service account).
 * Each bucket lists who may use it (`allowRoles`, `allowKeys`), evaluated as a bucket policy with
 * the local world's IAM evaluation (explicit Deny > Allow > implicit deny) on the object's ARN
 * `arn:aws:s3:::<bucket>/<key>`, plus optional extra statements. Refusals carry S3's error codes
 * (https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html): InvalidAccessKeyId (403),
 * SignatureDoesNotMatch (403), NoSuchBucket (404), AccessDenied (403), NoSuchKey (404), and
 * ServiceUnavailable (503) while the `s3-down` fault lasts.
 */
import type { Clock } from '../../platform/clock.js';
import { evaluatePolicies } from '../../local/iam/evaluate.js';
import type { Statement } from '../../local/iam/resolve.js';

/** One bucket as a scenario declares it. */
export type BucketSpec = {
  readonly name: string;
  readonly region: string;
  /** IAM role ARNs (IRSA / Pod Identity) allowed every s3 action on the bucket. */
  readonly allowRoles?: readonly string[];
  /** Access key pairs allowed every s3 action on the bucket. */
  readonly allowKeys?: readonly { readonly accessKey: string; readonly secretKey: string }[];
  /** Further bucket-policy statements (e.g. a Deny on a prefix), evaluated with the allows above. */
  readonly statements?: readonly Statement[];
};

/** Who calls: an access key pair, or an assumed IAM role. */
export type S3Credentials = { readonly kind: 'keys'; readonly accessKeyId: string; readonly secretAccessKey: string } | { readonly kind: 'role'; readonly roleArn: string };

/** One stored object: its size and what BR wrote into it (a manifest's content; data files have none). */
/** One object removed by DeleteObjects, and the pod (`namespace/name`) that asked, when known. */
export type S3Deletion = { readonly bucket: string; readonly key: string; readonly by?: string };

/** An object as S3 stores it (the body only for the small JSON files BR reads back). */
export type S3Object = { readonly key: string; readonly sizeBytes: number; readonly body?: unknown; readonly lastModifiedMs: number };

/** S3's error codes the simulation returns. */
export type S3ErrorCode = 'AccessDenied' | 'InvalidAccessKeyId' | 'SignatureDoesNotMatch' | 'NoSuchBucket' | 'NoSuchKey' | 'ServiceUnavailable';

const STATUS: Readonly<Record<S3ErrorCode, number>> = { AccessDenied: 403, InvalidAccessKeyId: 403, SignatureDoesNotMatch: 403, NoSuchBucket: 404, NoSuchKey: 404, ServiceUnavailable: 503 };

/** A refused S3 request, worded as the AWS SDK for Go prints it (`<Code>: <Message>\n\tstatus code: N`). */
export class S3Error extends Error {
  override readonly name = 'S3Error';
  readonly statusCode: number;

  constructor(
    readonly code: S3ErrorCode,
    message: string,
  ) {
    super(`${code}: ${message}\n\tstatus code: ${STATUS[code]}`);
    this.statusCode = STATUS[code];
  }
}

type Bucket = { spec: BucketSpec; objects: Map<string, S3Object> };

/** The simulated S3 of one world. */
export class SimS3 {
  private readonly buckets = new Map<string, Bucket>();
  private downUntilMs = 0;
  private readonly deleteListeners: ((d: S3Deletion) => void)[] = [];

  constructor(
    private readonly clock: Clock,
    buckets: readonly BucketSpec[] = [],
  ) {
    for (const b of buckets) this.buckets.set(b.name, { spec: b, objects: new Map() });
  }

  /** Adds a bucket (a scenario's `sim.buckets` entry); a second bucket of the same name is refused, as S3's BucketAlreadyOwnedByYou. */
  addBucket(spec: BucketSpec): void {
    if (this.buckets.has(spec.name)) throw new Error(`bucket ${spec.name} is declared twice`);
    this.buckets.set(spec.name, { spec, objects: new Map() });
  }

  /** Makes every request fail with ServiceUnavailable for `forMs` (the `s3-down` fault). */
  setDown(forMs: number): void {
    this.downUntilMs = this.clock.nowMs() + forMs;
  }

  /** The region of a bucket, if it exists (what GetBucketLocation says). */
  regionOf(bucket: string): string | undefined {
    return this.buckets.get(bucket)?.spec.region;
  }

  /** Stores an object (PutObject). */
  put(who: S3Credentials, bucket: string, key: string, sizeBytes: number, body?: unknown): void {
    const b = this.authorize(who, 's3:PutObject', bucket, key);
    b.objects.set(key, { key, sizeBytes, ...(body === undefined ? {} : { body: structuredClone(body) }), lastModifiedMs: this.clock.nowMs() });
  }

  /** Reads an object (GetObject); NoSuchKey when it is absent. */
  get(who: S3Credentials, bucket: string, key: string): S3Object {
    const b = this.authorize(who, 's3:GetObject', bucket, key);
    const object = b.objects.get(key);
    if (!object) throw new S3Error('NoSuchKey', 'The specified key does not exist.');
    return object;
  }

  /** Whether an object exists (HeadObject), false when absent. */
  exists(who: S3Credentials, bucket: string, key: string): boolean {
    const b = this.authorize(who, 's3:GetObject', bucket, key);
    return b.objects.has(key);
  }

  /** The keys under `prefix` in key order (ListObjectsV2, every page). */
  list(who: S3Credentials, bucket: string, prefix: string): S3Object[] {
    const b = this.authorize(who, 's3:ListBucket', bucket, '');
    return [...b.objects.values()].filter((o) => o.key.startsWith(prefix)).sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
  }

  /**
   * Deletes objects (DeleteObjects); an absent key is not an error, as in S3. `by` names the pod
   * (`namespace/name`) whose process sends the request, for the monitors (S3 itself knows only
   * the credentials); every object actually removed is reported to `onDelete` listeners.
   */
  delete(who: S3Credentials, bucket: string, keys: readonly string[], by?: string): void {
    for (const key of keys) {
      const b = this.authorize(who, 's3:DeleteObject', bucket, key);
      if (b.objects.delete(key)) for (const listen of this.deleteListeners) listen({ bucket, key, ...(by === undefined ? {} : { by }) });
    }
  }

  /** Tells `listener` of every object deleted from now on. */
  onDelete(listener: (d: S3Deletion) => void): void {
    this.deleteListeners.push(listener);
  }

  /** The IAM roles the world knows (every bucket's `allowRoles`): what an IRSA pod can assume. */
  knownRoles(): Set<string> {
    return new Set([...this.buckets.values()].flatMap((b) => b.spec.allowRoles ?? []));
  }

  /** Every bucket's object keys, for the report and the monitors (no credentials: the world's own view). */
  contents(): Record<string, string[]> {
    return Object.fromEntries([...this.buckets].map(([name, b]) => [name, [...b.objects.keys()].sort()]));
  }

  /** The objects of one bucket (the world's own view), or undefined when there is no such bucket. */
  objectsOf(bucket: string): S3Object[] | undefined {
    const b = this.buckets.get(bucket);
    return b ? [...b.objects.values()] : undefined;
  }

  private authorize(who: S3Credentials, action: string, bucket: string, key: string): Bucket {
    if (this.clock.nowMs() < this.downUntilMs) throw new S3Error('ServiceUnavailable', 'Please reduce your request rate.');
    this.checkCredentials(who);
    const b = this.buckets.get(bucket);
    if (!b) throw new S3Error('NoSuchBucket', 'The specified bucket does not exist');
    const principal = who.kind === 'role' ? who.roleArn : who.accessKeyId;
    const allowed = who.kind === 'role' ? (b.spec.allowRoles ?? []).includes(who.roleArn) : (b.spec.allowKeys ?? []).some((k) => k.accessKey === who.accessKeyId);
    const statements: Statement[] = [...(allowed ? [{ Effect: 'Allow', Action: 's3:*', Resource: [`arn:aws:s3:::${bucket}`, `arn:aws:s3:::${bucket}/*`] } as Statement] : []), ...(b.spec.statements ?? [])];
    const resource = key ? `arn:aws:s3:::${bucket}/${key}` : `arn:aws:s3:::${bucket}`;
    if (evaluatePolicies(statements, { action, resource, context: { 'aws:PrincipalArn': principal } }) !== 'allow') throw new S3Error('AccessDenied', 'Access Denied');
    return b;
  }

  /** An access key must exist in the world (some bucket lists it) and its secret must match. */
  private checkCredentials(who: S3Credentials): void {
    if (who.kind === 'role') return;
    const known = [...this.buckets.values()].flatMap((b) => b.spec.allowKeys ?? []).filter((k) => k.accessKey === who.accessKeyId);
    if (known.length === 0) throw new S3Error('InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.');
    if (!known.some((k) => k.secretKey === who.secretAccessKey)) throw new S3Error('SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided. Check your key and signing method.');
  }
}
