/**
 * The `accessEntries:` section of a scenario file: the simulated EKS cluster's access entries, which
 * map an IAM principal to the Kubernetes user and groups the admin function's RBAC check asks about
 * (see lib/wiring/admin-auth.ts). Each is `{principalArn, username?, kubernetesGroups?}` as
 * CreateAccessEntry takes them: `principalArn` an IAM role or user ARN (never an STS session),
 * `username` defaulting as EKS defaults it. The scenario operator (the caller of `admin:` entries
 * without `as:`) has its own entry and is not listed here. Anything else is a file error.
 */
import type { AccessEntry } from '../../eks/port.js';
import { defaultAccessEntryUsername } from '../../platform/admin-caller.js';
import { SCENARIO_OPERATOR } from '../admin-identity.js';
import { describeValue, expectMapping, FieldError, readString, rejectUnknownFields, required, type FieldPath } from './reader.js';

/** An IAM role ARN (with an optional path) or IAM user ARN, as access entries name principals. */
export const IAM_PRINCIPAL_ARN = /^arn:aws[a-z-]*:iam::\d{12}:(role|user)\/(?:[\x21-\x7e]*\/)?[\w+=,.@-]{1,128}$/;

/** Reads `accessEntries:` (absent or empty: none); a principal may be listed once. */
export function readAccessEntries(raw: unknown): readonly AccessEntry[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw new FieldError(['accessEntries'], `expected a list of {principalArn, username?, kubernetesGroups?}, got ${describeValue(raw)}`);
  const seen = new Set<string>([SCENARIO_OPERATOR.roleArn]);
  return raw.map((item, i) => {
    const path: FieldPath = ['accessEntries', i];
    const map = expectMapping(item, path, 'a mapping {principalArn, username?, kubernetesGroups?}');
    rejectUnknownFields(map, path, ['principalArn', 'username', 'kubernetesGroups']);
    const principalArn = readIamPrincipal(required(map, 'principalArn', path), [...path, 'principalArn']);
    if (seen.has(principalArn)) throw new FieldError([...path, 'principalArn'], `${principalArn} has an access entry already (one per principal, as in EKS)`);
    seen.add(principalArn);
    const username = 'username' in map ? readString(map['username'], [...path, 'username']) : defaultAccessEntryUsername(principalArn);
    if (username === '') throw new FieldError([...path, 'username'], 'must not be empty (leave it out for the default)');
    return { principalArn, username, kubernetesGroups: readGroups(map['kubernetesGroups'], [...path, 'kubernetesGroups']), type: 'STANDARD' };
  });
}

/** An IAM role or user ARN (`as:` of an admin entry, `principalArn` of an access entry). */
export function readIamPrincipal(value: unknown, path: FieldPath): string {
  const arn = readString(value, path);
  if (!IAM_PRINCIPAL_ARN.test(arn)) throw new FieldError(path, `expected an IAM role or user ARN (arn:aws:iam::000000000000:role/NAME), got ${JSON.stringify(arn)}`);
  return arn;
}

function readGroups(value: unknown, path: FieldPath): readonly string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new FieldError(path, `expected a list of group names, got ${describeValue(value)}`);
  return value.map((g, i) => {
    const group = readString(g, [...path, i]);
    if (group.startsWith('system:')) throw new FieldError([...path, i], `EKS refuses groups starting with "system:" in access entries, got ${JSON.stringify(group)}`);
    return group;
  });
}
