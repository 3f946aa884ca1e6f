/**
 * The local world's IAM: each function's role from the packaged template (infra/iam/roles.json),
 * resolved to the local names; the access keys that identify each function's clients; the check
 * every local AWS end (the DynamoDB and SQS fronts, the in-memory queue and scheduler) makes before
 * it answers; and the record of what each principal was allowed and refused.
 */
import { readFileSync } from 'node:fs';
import type { IamExtract } from './extract.js';
import { accessDeniedMessage, assumedRoleArn, evaluatePolicies, type IamDecision } from './evaluate.js';
import { type LocalNames, LocalResolver, type ResolvedRole } from './resolve.js';

/** The extract checked in beside serverless.yml's output (scripts/gen-iam-roles.ts writes it). */
export const IAM_EXTRACT_URL = new URL('../../../infra/iam/roles.json', import.meta.url);

/** Reads the checked-in extract. */
export function loadIamExtract(): IamExtract {
  return JSON.parse(readFileSync(IAM_EXTRACT_URL, 'utf8')) as IamExtract;
}

/**
 * A denied call, shaped as the AWS SDK surfaces one (`name`, `$fault`, AWS's message), so code
 * under test sees what it would see on AWS.
 */
export class AccessDeniedError extends Error {
  override readonly name: string;
  readonly $fault = 'client';

  /** `name` is what the service's SDK calls the error (`AccessDeniedException`; SQS's `AccessDenied`). */
  constructor(message: string, name = 'AccessDeniedException') {
    super(message);
    this.name = name;
  }
}

/** Who makes a call: a function (its role's session named after it) or a role a service assumed. */
export type Principal = { readonly label: string; readonly arn: string; readonly role: ResolvedRole };

/** Static credentials of one principal's clients; the access key id names the principal. */
export type LocalCredentials = { readonly accessKeyId: string; readonly secretAccessKey: string };

/** One refused call. */
export type Denial = { readonly principal: string; readonly action: string; readonly resource: string; readonly message: string };

/**
 * The deployer: creates the table and queues as CloudFormation would (no role of the template
 * applies to it). Only stack set-up uses it; no function's client does.
 */
export const DEPLOYER: LocalCredentials = { accessKeyId: 'ASIALOCALDEPLOYER', secretAccessKey: 'local' };

/** See the module comment. */
export class LocalIam {
  /** What each principal was allowed to do, `service:Action` by principal label. */
  readonly used = new Map<string, Set<string>>();
  /** Every refused call, in order. */
  readonly denials: Denial[] = [];
  /** Told of every refused call as it happens (a simulation stamps it with virtual time). */
  onDenial: ((denial: Denial) => void) | undefined;
  readonly resolver: LocalResolver;
  private readonly roles: ReadonlyMap<string, ResolvedRole>;

  constructor(
    readonly extract: IamExtract,
    local: LocalNames = {},
  ) {
    this.resolver = new LocalResolver(extract, local);
    this.roles = new Map(this.resolver.roles().map((r) => [r.logicalId, r]));
  }

  /** The local world's IAM from the checked-in extract. */
  static load(local: LocalNames = {}): LocalIam {
    return new LocalIam(loadIamExtract(), local);
  }

  /** The functions of the template, by short name. */
  functionNames(): string[] {
    return Object.keys(this.extract.functions);
  }

  /** The principal of function `fn`'s calls. Throws for a function the template does not have. */
  functionPrincipal(fn: string): Principal {
    const f = this.extract.functions[fn];
    if (f === undefined) throw new Error(`no function ${fn} in the IAM extract (${this.functionNames().join(', ')})`);
    const role = this.role(f.role);
    return { label: fn, role, arn: assumedRoleArn(this.resolver.account, role.roleName, f.functionName, this.resolver.partition) };
  }

  /** The resolved role `logicalId`. */
  role(logicalId: string): ResolvedRole {
    const role = this.roles.get(logicalId);
    if (role === undefined) throw new Error(`no role ${logicalId} in the IAM extract`);
    return role;
  }

  /** The resolved role whose ARN is `arn`, if any. */
  roleByArn(arn: string): ResolvedRole | undefined {
    return [...this.roles.values()].find((r) => r.arn === arn);
  }

  /** The credentials function `fn`'s clients sign with. */
  credentialsOf(fn: string): LocalCredentials {
    this.functionPrincipal(fn);
    return { accessKeyId: `ASIALOCAL${fn.toUpperCase()}`, secretAccessKey: 'local' };
  }

  /** The principal an access key id names; 'deployer' for `DEPLOYER`; undefined for an unknown key. */
  principalOfAccessKey(accessKeyId: string): Principal | 'deployer' | undefined {
    if (accessKeyId === DEPLOYER.accessKeyId) return 'deployer';
    const fn = this.functionNames().find((name) => this.credentialsOf(name).accessKeyId === accessKeyId);
    return fn === undefined ? undefined : this.functionPrincipal(fn);
  }

  /**
   * `service` (e.g. `scheduler.amazonaws.com`) assumes role `logicalId`, with the context the service
   * sets (`aws:SourceAccount`, `aws:SourceArn`): the role's trust policy decides. Throws
   * `AccessDeniedError` as STS does when it does not allow it.
   */
  assumeByService(logicalId: string, service: string, context: Readonly<Record<string, string>>, sessionName: string): Principal {
    const role = this.role(logicalId);
    const trusted = role.trust.filter((s) => principalServices(s.Principal).includes(service));
    const decision = evaluatePolicies(trusted, { action: 'sts:AssumeRole', resource: role.arn, context });
    if (decision !== 'allow') {
      const message = `${service} is not authorized to perform: sts:AssumeRole on resource: ${role.arn}`;
      this.deny({ principal: service, action: 'sts:AssumeRole', resource: role.arn, message });
      throw new AccessDeniedError(message);
    }
    return { label: `${service}:${logicalId}`, role, arn: assumedRoleArn(this.resolver.account, role.roleName, sessionName, this.resolver.partition) };
  }

  /**
   * A rate schedule of function `fn` fires: Scheduler assumes the role the schedule names (its trust
   * decides, with this account and the schedule's group) and invokes the function's alias the
   * schedule targets (its `live` alias, scripts/osls-live-alias.cjs) as that role.
   * Throws `AccessDeniedError` when either is refused, or when `fn` has no rate schedule.
   */
  authorizeScheduledInvoke(fn: string): void {
    const schedule = this.extract.schedules.find((s) => s.function === fn);
    const f = this.extract.functions[fn];
    if (schedule === undefined || f === undefined) throw new AccessDeniedError(`no schedule of the template invokes ${fn}`);
    const { partition, region, account } = this.resolver;
    const sourceArn = `arn:${partition}:scheduler:${region}:${account}:schedule-group/${schedule.groupName}`;
    const principal = this.assumeByService(schedule.role, 'scheduler.amazonaws.com', { 'aws:SourceAccount': account, 'aws:SourceArn': sourceArn }, fn);
    const qualifier = schedule.qualifier === undefined ? '' : `:${schedule.qualifier}`;
    this.authorize(principal, 'lambda:InvokeFunction', [`arn:${partition}:lambda:${region}:${account}:function:${f.functionName}${qualifier}`]);
  }

  /**
   * Authorises `action` on every resource of `resources` (a batch call is checked table by table, as
   * DynamoDB does), recording it as used; throws `AccessDeniedError` with AWS's message naming the
   * first refused resource.
   */
  authorize(principal: Principal, action: string, resources: readonly string[], context: Readonly<Record<string, string>> = {}): void {
    for (const resource of resources) {
      const decision: IamDecision = evaluatePolicies(principal.role.statements, { action, resource, context });
      if (decision !== 'allow') {
        const message = accessDeniedMessage(principal.arn, { action, resource }, decision);
        this.deny({ principal: principal.label, action, resource, message });
        throw new AccessDeniedError(message);
      }
    }
    let set = this.used.get(principal.label);
    if (set === undefined) this.used.set(principal.label, (set = new Set()));
    set.add(action);
  }

  private deny(denial: Denial): void {
    this.denials.push(denial);
    this.onDenial?.(denial);
  }

  /**
   * The actions function `fn`'s role allows that `fn` was never allowed to do here, less `exempt`
   * (what the Lambda service, not the function's code, does as the role). Empty when the role is
   * exactly what the function used.
   */
  unusedGrants(fn: string, exempt: readonly string[] = []): string[] {
    const used = this.used.get(fn) ?? new Set<string>();
    const role = this.extract.functions[fn]?.role ?? '';
    return this.grantedActions(role).filter((action) => !exempt.includes(action) && ![...used].some((u) => u.toLowerCase() === action.toLowerCase()));
  }

  /** The actions role `logicalId` allows (its Allow statements' `Action`s, as written). */
  grantedActions(logicalId: string): string[] {
    return this.role(logicalId).statements.filter((s) => s.Effect === 'Allow').flatMap((s) => (s.Action === undefined ? [] : typeof s.Action === 'string' ? [s.Action] : [...s.Action]));
  }
}

function principalServices(principal: unknown): string[] {
  const service = (principal as { Service?: string | string[] } | undefined)?.Service;
  return service === undefined ? [] : typeof service === 'string' ? [service] : service;
}
