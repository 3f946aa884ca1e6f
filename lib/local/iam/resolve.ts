/**
 * Resolves the extract's intrinsics (`Ref`, `Fn::GetAtt <id> Arn`, `Fn::Sub`, `Fn::Join`, `Fn::Split`) to the
 * local world's names: account 000000000000, region us-east-1, and each resource's local name
 * (the local table and queue are named by the stack; everything else keeps the template's name).
 * ARN shapes and `Ref` values are CloudFormation's return values of each resource type
 * (https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/aws-template-resource-type-ref.html).
 */
import type { CfnStatement, CfnValue, IamExtract } from './extract.js';

/** The account and region of the local world, as LocalStack and moto use. */
export const LOCAL_ACCOUNT = '000000000000';
/** The local world's region. */
export const LOCAL_REGION = 'us-east-1';

/** Where the local world is: its account, region, partition, and the local name of any resource renamed locally. */
export type LocalNames = {
  readonly account?: string;
  readonly region?: string;
  readonly partition?: string;
  /** Local names by logical id (e.g. `{ StateTable: 'tidb-reconciler-state' }`); others keep the template's. */
  readonly names?: Readonly<Record<string, string>>;
};

/** A policy statement with every value a plain string (or list of strings / condition map). */
export type Statement = {
  readonly Effect: 'Allow' | 'Deny';
  readonly Action?: string | readonly string[];
  readonly NotAction?: string | readonly string[];
  readonly Resource?: string | readonly string[];
  readonly NotResource?: string | readonly string[];
  readonly Principal?: unknown;
  readonly Condition?: Readonly<Record<string, Readonly<Record<string, string | readonly string[]>>>>;
};

/** A role with its names and ARN resolved. */
export type ResolvedRole = { readonly logicalId: string; readonly roleName: string; readonly arn: string; readonly trust: readonly Statement[]; readonly statements: readonly Statement[] };

/** The resolver of one local world; `resolve` throws naming the intrinsic it cannot resolve. */
export class LocalResolver {
  readonly account: string;
  readonly region: string;
  readonly partition: string;

  constructor(
    private readonly extract: IamExtract,
    private readonly local: LocalNames = {},
  ) {
    this.account = local.account ?? LOCAL_ACCOUNT;
    this.region = local.region ?? LOCAL_REGION;
    this.partition = local.partition ?? 'aws';
  }

  /** The local name of resource `id`: the locally given one, else the template's. */
  nameOf(id: string): string {
    const given = this.local.names?.[id];
    if (given !== undefined) return given;
    const r = this.extract.resources[id] ?? (this.extract.roles[id] ? { type: 'AWS::IAM::Role', name: this.extract.roles[id].roleName } : undefined);
    if (r === undefined) throw new Error(`no resource ${id} in the IAM extract`);
    if (r.name === undefined || r.name === null) throw new Error(`${id} has no name in the template; give it a local name`);
    return this.resolveString(r.name);
  }

  /** `Fn::GetAtt [id, Arn]` of resource `id`. */
  arnOf(id: string): string {
    const type = this.extract.resources[id]?.type ?? (this.extract.roles[id] ? 'AWS::IAM::Role' : undefined);
    const { partition: p, region: r, account: a } = this;
    const name = this.nameOf(id);
    switch (type) {
      case 'AWS::DynamoDB::Table':
        return `arn:${p}:dynamodb:${r}:${a}:table/${name}`;
      case 'AWS::SQS::Queue':
        return `arn:${p}:sqs:${r}:${a}:${name}`;
      case 'AWS::IAM::Role':
        return `arn:${p}:iam::${a}:role/${name}`;
      case 'AWS::Lambda::Function':
        return `arn:${p}:lambda:${r}:${a}:function:${name}`;
      case 'AWS::Logs::LogGroup':
        return `arn:${p}:logs:${r}:${a}:log-group:${name}:*`;
      case 'AWS::Scheduler::ScheduleGroup':
        return `arn:${p}:scheduler:${r}:${a}:schedule-group/${name}`;
      default:
        throw new Error(`Fn::GetAtt ${id}.Arn: resource type ${String(type)} is not modelled`);
    }
  }

  /** Every role of the extract, resolved. */
  roles(): ResolvedRole[] {
    return Object.entries(this.extract.roles).map(([logicalId, role]) => ({
      logicalId,
      roleName: this.nameOf(logicalId),
      arn: this.arnOf(logicalId),
      trust: role.trust.map((s) => this.statement(s)),
      statements: role.statements.map((s) => this.statement(s)),
    }));
  }

  /** A statement with its intrinsics resolved. */
  statement(s: CfnStatement): Statement {
    return this.resolve(s as CfnValue) as unknown as Statement;
  }

  /** `value` with every intrinsic replaced by its local value. */
  resolve(value: CfnValue): CfnValue {
    if (Array.isArray(value)) return value.map((v) => this.resolve(v));
    if (typeof value !== 'object' || value === null) return value;
    const entries = Object.entries(value as Record<string, CfnValue>);
    const [key, arg] = entries.length === 1 ? (entries[0] ?? []) : [];
    if (key === 'Ref' || key === 'Fn::GetAtt' || key === 'Fn::Sub' || key === 'Fn::Join' || key === 'Fn::Split') return this.intrinsic(key, arg);
    if (typeof key === 'string' && key.startsWith('Fn::')) throw new Error(`${key} is not modelled by the local IAM resolver`);
    return Object.fromEntries(entries.map(([k, v]) => [k, this.resolve(v)]));
  }

  private resolveString(value: CfnValue): string {
    const resolved = this.resolve(value);
    if (typeof resolved !== 'string') throw new Error(`expected a string, got ${JSON.stringify(resolved)}`);
    return resolved;
  }

  private intrinsic(key: string, arg: CfnValue | undefined): CfnValue {
    if (key === 'Ref' && typeof arg === 'string') return this.ref(arg);
    if (key === 'Fn::GetAtt' && Array.isArray(arg) && typeof arg[0] === 'string' && arg[1] === 'Arn') return this.arnOf(arg[0]);
    if (key === 'Fn::Join' && Array.isArray(arg) && typeof arg[0] === 'string') {
      // The list may itself be an intrinsic (Fn::Split), as serverless.yml's access-entry ARNs are.
      const list = Array.isArray(arg[1]) ? (arg[1] as CfnValue[]) : this.resolve(arg[1] as CfnValue);
      if (!Array.isArray(list)) throw new Error(`Fn::Join ${JSON.stringify(arg)}: expected a list`);
      return (list as CfnValue[]).map((v) => this.resolveString(v)).join(arg[0]);
    }
    if (key === 'Fn::Split' && Array.isArray(arg) && typeof arg[0] === 'string') return this.resolveString(arg[1] as CfnValue).split(arg[0]);
    if (key === 'Fn::Sub') return this.sub(arg);
    throw new Error(`${key} ${JSON.stringify(arg)} is not modelled by the local IAM resolver`);
  }

  private ref(id: string): string {
    if (id === 'AWS::AccountId') return this.account;
    if (id === 'AWS::Region') return this.region;
    if (id === 'AWS::Partition') return this.partition;
    if (id === 'AWS::URLSuffix') return 'amazonaws.com';
    if (this.extract.resources[id]?.type === 'AWS::SQS::Queue') return `https://sqs.${this.region}.amazonaws.com/${this.account}/${this.nameOf(id)}`;
    return this.nameOf(id);
  }

  private sub(arg: CfnValue | undefined): string {
    const [text, vars] = Array.isArray(arg) ? [arg[0], arg[1] as Record<string, CfnValue> | undefined] : [arg, undefined];
    if (typeof text !== 'string') throw new Error(`Fn::Sub ${JSON.stringify(arg)}: expected a string`);
    return text.replace(/\$\{([^}!]+)\}/g, (_m, name: string) => {
      const given = vars?.[name];
      if (given !== undefined) return this.resolveString(given);
      const [id, att] = name.split('.');
      return att === 'Arn' && id ? this.arnOf(id) : this.ref(name);
    });
  }
}
