/**
 * IAM's evaluation of identity-based policies for one request, as the policy evaluation logic
 * describes it for a principal in the resource's own account with no resource policy
 * (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html):
 * an explicit Deny of any matching statement wins, else an Allow of any matching statement, else
 * the implicit deny. A statement matches when its Action/NotAction, Resource/NotResource and every
 * condition match. What is and is not modelled is in docs/adr/0014.
 */
import type { Statement } from './resolve.js';

/** One request: the action (`service:Op`), the resource ARN, and the request context keys. */
export type IamRequest = {
  readonly action: string;
  readonly resource: string;
  readonly context?: Readonly<Record<string, string>>;
};

/** The outcome. */
export type IamDecision = 'allow' | 'explicit-deny' | 'implicit-deny';

/** Thrown for a policy the evaluator cannot read (an operator it does not model): never silently allowed or denied. */
export class UnsupportedPolicyError extends Error {
  override readonly name = 'UnsupportedPolicyError';
}

/** Decides `request` against `statements` (every identity-based policy of the principal). */
export function evaluatePolicies(statements: readonly Statement[], request: IamRequest): IamDecision {
  let allowed = false;
  for (const s of statements) {
    if (!statementMatches(s, request)) continue;
    if (s.Effect === 'Deny') return 'explicit-deny';
    allowed = true;
  }
  return allowed ? 'allow' : 'implicit-deny';
}

/** Whether one statement applies to the request (Effect aside). */
export function statementMatches(s: Statement, request: IamRequest): boolean {
  const actionOk = s.Action !== undefined ? anyOf(s.Action, (p) => actionMatches(p, request.action)) : s.NotAction !== undefined && !anyOf(s.NotAction, (p) => actionMatches(p, request.action));
  if (!actionOk) return false;
  // A statement with neither Resource nor NotResource is a trust policy's: it applies to the role itself.
  const resourceOk =
    s.Resource !== undefined ? anyOf(s.Resource, (p) => resourceMatches(p, request.resource)) : s.NotResource !== undefined ? !anyOf(s.NotResource, (p) => resourceMatches(p, request.resource)) : true;
  return resourceOk && conditionsMatch(s.Condition ?? {}, request.context ?? {});
}

/** Action patterns: `service:Op` with `*` and `?`, case-insensitive (IAM compares actions so). */
export function actionMatches(pattern: string, action: string): boolean {
  return globToRegExp(pattern, 'i').test(action);
}

/**
 * Resource patterns: `*` alone matches everything; otherwise the ARN's first five segments
 * (`arn:partition:service:region:account`) are matched each on its own, and the resource part
 * (the rest, with its `/` and `:`) as a whole, `*` and `?` as wildcards, case-sensitively.
 */
export function resourceMatches(pattern: string, arn: string): boolean {
  if (pattern === '*') return true;
  const p = splitArn(pattern);
  const a = splitArn(arn);
  if (p === undefined || a === undefined) return pattern === arn;
  return p.every((segment, i) => globToRegExp(segment, '').test(a[i] ?? ''));
}

function splitArn(text: string): string[] | undefined {
  const parts = text.split(':');
  if (parts.length < 6 || parts[0] !== 'arn') return undefined;
  return [...parts.slice(0, 5), parts.slice(5).join(':')];
}

type Operator = (policyValue: string, contextValue: string) => boolean;

/** The condition operators modelled (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_condition_operators.html). */
const OPERATORS: Readonly<Record<string, { readonly test: Operator; readonly negated: boolean }>> = {
  StringEquals: { test: (p, c) => p === c, negated: false },
  StringNotEquals: { test: (p, c) => p === c, negated: true },
  StringEqualsIgnoreCase: { test: (p, c) => p.toLowerCase() === c.toLowerCase(), negated: false },
  StringNotEqualsIgnoreCase: { test: (p, c) => p.toLowerCase() === c.toLowerCase(), negated: true },
  StringLike: { test: (p, c) => globToRegExp(p, '').test(c), negated: false },
  StringNotLike: { test: (p, c) => globToRegExp(p, '').test(c), negated: true },
  // ArnEquals and ArnLike behave alike: each ARN segment matched with wildcards.
  ArnEquals: { test: (p, c) => resourceMatches(p, c), negated: false },
  ArnLike: { test: (p, c) => resourceMatches(p, c), negated: false },
  ArnNotEquals: { test: (p, c) => resourceMatches(p, c), negated: true },
  ArnNotLike: { test: (p, c) => resourceMatches(p, c), negated: true },
  Bool: { test: (p, c) => p.toLowerCase() === c.toLowerCase(), negated: false },
};

/**
 * Every operator, and every key under it, must hold (AND); a key's policy values are alternatives
 * (OR; for a negated operator, none may match). A key missing from the context fails the condition,
 * except under a negated operator or with the `…IfExists` suffix, where it holds.
 */
function conditionsMatch(conditions: NonNullable<Statement['Condition']>, context: Readonly<Record<string, string>>): boolean {
  return Object.entries(conditions).every(([name, keys]) => {
    if (name.startsWith('ForAnyValue:') || name.startsWith('ForAllValues:')) throw new UnsupportedPolicyError(`condition operator ${name}: multivalued keys are not modelled`);
    const ifExists = name.endsWith('IfExists');
    const op = OPERATORS[ifExists ? name.slice(0, -'IfExists'.length) : name];
    if (op === undefined) throw new UnsupportedPolicyError(`condition operator ${name} is not modelled`);
    return Object.entries(keys).every(([key, values]) => {
      const actual = lookup(context, key);
      if (actual === undefined) return ifExists || op.negated;
      const any = anyOf(values, (v) => op.test(v, actual));
      return op.negated ? !any : any;
    });
  });
}

/** Condition keys are case-insensitive. */
function lookup(context: Readonly<Record<string, string>>, key: string): string | undefined {
  const direct = context[key];
  if (direct !== undefined) return direct;
  const lower = key.toLowerCase();
  return Object.entries(context).find(([k]) => k.toLowerCase() === lower)?.[1];
}

function anyOf(value: string | readonly string[], test: (v: string) => boolean): boolean {
  return (typeof value === 'string' ? [value] : value).some(test);
}

function globToRegExp(pattern: string, flags: string): RegExp {
  const body = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${body}$`, `${flags}s`);
}

/** The principal of a Lambda function's calls: its role's session, named after the function. */
export function assumedRoleArn(account: string, roleName: string, sessionName: string, partition = 'aws'): string {
  return `arn:${partition}:sts::${account}:assumed-role/${roleName}/${sessionName}`;
}

/** AWS's AccessDenied message for an identity-based denial of `action` on `resource` by `principalArn`. */
export function accessDeniedMessage(principalArn: string, request: Pick<IamRequest, 'action' | 'resource'>, decision: Exclude<IamDecision, 'allow'>): string {
  const head = `User: ${principalArn} is not authorized to perform: ${request.action} on resource: ${request.resource}`;
  return decision === 'explicit-deny' ? `${head} with an explicit deny in an identity-based policy` : `${head} because no identity-based policy allows the ${request.action} action`;
}
