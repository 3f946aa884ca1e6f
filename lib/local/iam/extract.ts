/**
 * The IAM part of the CloudFormation template `npm run package` produces, as data the local world
 * enforces: which role each function runs as, each role's trust and permission statements (the
 * intrinsics kept exactly as in the template), the resources those statements name, and the rate
 * schedules with the role they assume. A separate `AWS::IAM::Policy` adds its statements to its roles
 * when its template condition holds (so the default package's conditional policies are not in it).
 * `scripts/gen-iam-roles.ts` writes it to
 * `infra/iam/roles.json`; the serverless-package test checks the file equals a fresh extract.
 */

/** A CloudFormation value: a literal or an intrinsic function, as the template has it. */
export type CfnValue = string | number | boolean | null | readonly CfnValue[] | { readonly [key: string]: CfnValue };

/** One IAM policy statement as the template has it (values may be intrinsics). */
export type CfnStatement = { readonly [key: string]: CfnValue };

/** One function: its deployed name and the logical id of its role. */
export type ExtractedFunction = { readonly functionName: string; readonly role: string };

/** One role: its name, who may assume it, and what it may do (every inline policy's statements). */
export type ExtractedRole = {
  readonly roleName: CfnValue;
  readonly trust: readonly CfnStatement[];
  readonly statements: readonly CfnStatement[];
};

/** A resource the roles name: its type and its name property (undefined when CloudFormation names it). */
export type ExtractedResource = { readonly type: string; readonly name?: CfnValue };

/**
 * A rate schedule (sweep, exporter): the function it invokes, its group, the role it assumes, and
 * the alias it invokes (`qualifier`; the target ARN `Fn::Join [':', [<function ARN>, <alias>]]`).
 */
export type ExtractedSchedule = { readonly function: string; readonly groupName: string; readonly role: string; readonly qualifier?: string };

/** The whole extract (`infra/iam/roles.json`). */
export type IamExtract = {
  readonly functions: Readonly<Record<string, ExtractedFunction>>;
  readonly roles: Readonly<Record<string, ExtractedRole>>;
  readonly resources: Readonly<Record<string, ExtractedResource>>;
  readonly schedules: readonly ExtractedSchedule[];
};

type Resource = { readonly Type: string; readonly Condition?: string; readonly Properties?: Record<string, CfnValue>; readonly DependsOn?: unknown };

/** The property that names a resource of each type the roles may name. */
const NAME_PROPERTY: Readonly<Record<string, string>> = {
  'AWS::DynamoDB::Table': 'TableName',
  'AWS::SQS::Queue': 'QueueName',
  'AWS::IAM::Role': 'RoleName',
  'AWS::Lambda::Function': 'FunctionName',
  'AWS::Logs::LogGroup': 'LogGroupName',
  'AWS::Scheduler::ScheduleGroup': 'Name',
};

/**
 * Extracts the IAM of `template` (a parsed CloudFormation template). Throws naming the resource when
 * a function's role is not a role of the template (`Role` must be `Fn::GetAtt [<role>, Arn]`).
 */
export function extractIam(template: { readonly Resources: Readonly<Record<string, Resource>>; readonly Conditions?: Readonly<Record<string, CfnValue>> }): IamExtract {
  const resources = template.Resources;
  const functions: Record<string, ExtractedFunction> = {};
  const roles: Record<string, ExtractedRole> = {};
  const schedules: ExtractedSchedule[] = [];
  for (const [id, r] of Object.entries(resources)) {
    if (r.Type === 'AWS::IAM::Role') roles[id] = extractRole(r);
  }
  // A separate policy (the VPC's, several EKS clusters') adds its statements to its roles when its condition holds.
  for (const [id, r] of Object.entries(resources)) {
    if (r.Type !== 'AWS::IAM::Policy' || (r.Condition !== undefined && !conditionHolds(template.Conditions ?? {}, r.Condition))) continue;
    const added = statementsOf((r.Properties?.['PolicyDocument'] as Record<string, CfnValue> | undefined)?.['Statement']);
    for (const ref of (r.Properties?.['Roles'] ?? []) as readonly CfnValue[]) {
      const roleId = typeof ref === 'object' && ref !== null && !Array.isArray(ref) ? (ref as Record<string, CfnValue>)['Ref'] : undefined;
      const role = typeof roleId === 'string' ? roles[roleId] : undefined;
      if (role === undefined || typeof roleId !== 'string') throw new Error(`${id}.Properties.Roles: expected Ref of a role in the template`);
      roles[roleId] = { ...role, statements: [...role.statements, ...added] };
    }
  }
  for (const [id, r] of Object.entries(resources)) {
    if (r.Type === 'AWS::Lambda::Function') {
      const role = getAttTarget(r.Properties?.['Role']);
      if (role === undefined || roles[role] === undefined) throw new Error(`${id}.Properties.Role: not Fn::GetAtt of a role in the template`);
      functions[shortName(id, r)] = { functionName: String(r.Properties?.['FunctionName']), role };
    }
    if (r.Type === 'AWS::Scheduler::Schedule') {
      const target = r.Properties?.['Target'] as Record<string, CfnValue> | undefined;
      const { arn, qualifier } = qualified(target?.['Arn']);
      const fn = getAttTarget(arn);
      const role = getAttTarget(target?.['RoleArn']);
      const fnResource = fn === undefined ? undefined : resources[fn];
      if (fnResource === undefined || role === undefined) throw new Error(`${id}.Properties.Target: Arn must be Fn::GetAtt of a function (or of its alias, Fn::Join ':'), RoleArn of a role`);
      schedules.push({ function: shortName(fn ?? '', fnResource), groupName: String(r.Properties?.['GroupName'] ?? 'default'), role, ...(qualifier === undefined ? {} : { qualifier }) });
    }
  }
  const named = new Set<string>();
  for (const role of Object.values(roles)) collectRefs([role.statements, role.trust], named);
  const referenced: Record<string, ExtractedResource> = {};
  for (const id of [...named].sort()) {
    const r = resources[id];
    if (r === undefined) throw new Error(`a role names ${id}, which is not a resource of the template`);
    const nameProperty = NAME_PROPERTY[r.Type];
    const name = nameProperty === undefined ? undefined : r.Properties?.[nameProperty];
    referenced[id] = { type: r.Type, ...(name === undefined ? {} : { name }) };
  }
  return { functions, roles, resources: referenced, schedules };
}

/**
 * Whether template condition `name` holds. The packaged template's conditions compare parameters osls
 * has already substituted, so they are `Fn::Not`/`Fn::And`/`Fn::Or`/`Fn::Equals` of literals.
 */
function conditionHolds(conditions: Readonly<Record<string, CfnValue>>, name: string): boolean {
  const evaluate = (value: CfnValue | undefined): boolean => {
    const [[key, arg] = []] = typeof value === 'object' && value !== null && !Array.isArray(value) ? Object.entries(value) : [];
    const args = (Array.isArray(arg) ? arg : []) as readonly CfnValue[];
    if (key === 'Condition' && typeof arg === 'string') return evaluate(conditions[arg]);
    if (key === 'Fn::Not') return !evaluate(args[0]);
    if (key === 'Fn::And') return args.every(evaluate);
    if (key === 'Fn::Or') return args.some(evaluate);
    if (key === 'Fn::Equals' && args.every((a) => typeof a !== 'object')) return args[0] === args[1];
    throw new Error(`condition ${name}: ${JSON.stringify(value)} is not a comparison of literals`);
  };
  return evaluate(conditions[name]);
}

function extractRole(r: Resource): ExtractedRole {
  const p = r.Properties ?? {};
  const trust = statementsOf((p['AssumeRolePolicyDocument'] as Record<string, CfnValue> | undefined)?.['Statement']);
  const policies = (p['Policies'] ?? []) as readonly { PolicyDocument?: { Statement?: CfnValue } }[];
  if (p['ManagedPolicyArns'] !== undefined) throw new Error('roles with ManagedPolicyArns cannot be evaluated locally; use inline policies');
  return { roleName: p['RoleName'] ?? null, trust, statements: policies.flatMap((policy) => statementsOf(policy.PolicyDocument?.Statement)) };
}

function statementsOf(value: CfnValue | undefined): CfnStatement[] {
  if (value === undefined || value === null) return [];
  return (Array.isArray(value) ? value : [value]) as CfnStatement[];
}

/** The function's short name: its handler's file (`functions/sweep.handler` → `sweep`). */
function shortName(id: string, r: Resource): string {
  const handler = r.Properties?.['Handler'];
  const match = typeof handler === 'string' ? /([^/]+)\.[^.]+$/.exec(handler) : null;
  if (!match?.[1]) throw new Error(`${id}.Properties.Handler: expected <dir>/<file>.<export>`);
  return match[1];
}

/** `Fn::Join [':', [<arn>, <alias>]]` (an alias of a function, as osls writes it) as its two parts; anything else as is. */
function qualified(value: CfnValue | undefined): { arn: CfnValue | undefined; qualifier?: string } {
  const join = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, CfnValue>)['Fn::Join'] : undefined;
  if (!Array.isArray(join) || join[0] !== ':' || !Array.isArray(join[1]) || join[1].length !== 2 || typeof join[1][1] !== 'string') return { arn: value };
  return { arn: join[1][0], qualifier: join[1][1] };
}

function getAttTarget(value: CfnValue | undefined): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const att = (value as Record<string, CfnValue>)['Fn::GetAtt'];
  return Array.isArray(att) && att[1] === 'Arn' && typeof att[0] === 'string' ? att[0] : undefined;
}

/** Every logical id a value refers to (`Ref`, `Fn::GetAtt`, `${Id}` in `Fn::Sub`), pseudo parameters left out. */
function collectRefs(value: unknown, into: Set<string>): void {
  if (Array.isArray(value)) {
    for (const v of value) collectRefs(v, into);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (key === 'Ref' && typeof v === 'string' && !v.startsWith('AWS::')) into.add(v);
    else if (key === 'Fn::GetAtt' && Array.isArray(v) && typeof v[0] === 'string') into.add(v[0]);
    else if (key === 'Fn::Sub') collectSubRefs(v, into);
    else collectRefs(v, into);
  }
}

function collectSubRefs(sub: unknown, into: Set<string>): void {
  const [text, vars] = Array.isArray(sub) ? [sub[0], sub[1] as Record<string, unknown> | undefined] : [sub, undefined];
  if (typeof text === 'string') {
    for (const m of text.matchAll(/\$\{([^}!]+)\}/g)) {
      const name = (m[1] ?? '').split('.')[0] ?? '';
      if (!name.startsWith('AWS::') && !(vars && name in vars)) into.add(name);
    }
  }
  if (vars) collectRefs(Object.values(vars), into);
}
