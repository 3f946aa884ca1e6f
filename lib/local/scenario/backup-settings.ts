/**
 * The backup parts of `sim:` — `buckets` (the simulated S3: name, region, and who may use each
 * bucket: IRSA role ARNs and access key pairs) and `workload` (writes per minute to the first
 * cluster's dataset). Each field is checked as the other sections are: unknown keys, wrong types
 * and duplicates are file errors naming the field.
 */
import type { BucketSpec } from '../../sim/backup/s3.js';
import { FieldError, type FieldPath, describeValue, expectMapping, readInteger, readString, rejectUnknownFields, required } from './reader.js';

// S3 bucket names: 3-63 lower-case letters, digits, dots and hyphens, starting and ending with a letter or digit.
const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
/** An IAM role ARN: arn:aws:iam::<12-digit account>:role/<path and name>. */
export const ROLE_ARN = /^arn:aws:iam::\d{12}:role\/[\w+=,.@/-]+$/;

/** Reads `sim.buckets`: a list of `{name, region, allowRoles?, allowKeys?}`, names unique. */
export function readBuckets(value: unknown, path: FieldPath): BucketSpec[] {
  if (!Array.isArray(value)) throw new FieldError(path, `expected a list of buckets, got ${describeValue(value)}`);
  const seen = new Set<string>();
  return value.map((raw: unknown, i) => {
    const at: FieldPath = [...path, i];
    const map = expectMapping(raw, at, 'a mapping {name, region, allowRoles, allowKeys}');
    rejectUnknownFields(map, at, ['name', 'region', 'allowRoles', 'allowKeys'], 'for a bucket');
    const name = readString(required(map, 'name', at), [...at, 'name']);
    if (!BUCKET_NAME.test(name)) throw new FieldError([...at, 'name'], `"${name}" is not a valid S3 bucket name`);
    if (seen.has(name)) throw new FieldError([...at, 'name'], `bucket ${name} is declared twice`);
    seen.add(name);
    const region = readString(required(map, 'region', at), [...at, 'region']);
    const allowRoles = list(map['allowRoles'], [...at, 'allowRoles']).map((r, j) => {
      const arn = readString(r, [...at, 'allowRoles', j]);
      if (!ROLE_ARN.test(arn)) throw new FieldError([...at, 'allowRoles', j], `"${arn}" is not an IAM role ARN (arn:aws:iam::<account>:role/<name>)`);
      return arn;
    });
    const allowKeys = list(map['allowKeys'], [...at, 'allowKeys']).map((k, j) => {
      const kat: FieldPath = [...at, 'allowKeys', j];
      const km = expectMapping(k, kat, 'a mapping {accessKey, secretKey}');
      rejectUnknownFields(km, kat, ['accessKey', 'secretKey'], 'for a key pair');
      return { accessKey: readString(required(km, 'accessKey', kat), [...kat, 'accessKey']), secretKey: readString(required(km, 'secretKey', kat), [...kat, 'secretKey']) };
    });
    return { name, region, allowRoles, allowKeys };
  });
}

/** Reads `sim.workload: {writesPerMinute}` (0 to 100000). */
export function readWorkload(value: unknown, path: FieldPath): { writesPerMinute: number } {
  const map = expectMapping(value, path, 'a mapping {writesPerMinute}');
  rejectUnknownFields(map, path, ['writesPerMinute'], 'for the workload');
  return { writesPerMinute: readInteger(required(map, 'writesPerMinute', path), [...path, 'writesPerMinute'], 0, 100_000) };
}

function list(value: unknown, path: FieldPath): unknown[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new FieldError(path, `expected a list, got ${describeValue(value)}`);
  return value;
}
