/**
 * Label and field selectors, parsed and matched as the API server does: the query-string form of
 * `?labelSelector=` (k8s.io/apimachinery labels.Parse, same grammar and error wording), the object
 * form in StatefulSet/Deployment specs (`matchLabels` + `matchExpressions`), and `?fieldSelector=`
 * with the fields each kind supports. Also the label key/value rules and the name-format helpers
 * (worded as k8s.io/apimachinery's validation package) that validation.ts builds on.
 */
import { ApiError } from './api-error.js';

/** A normalised requirement: `=`/`==` become `In`, `!=` becomes `NotIn` (it matches a missing key too). */
export type LabelRequirement = {
  readonly key: string;
  readonly operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt';
  readonly values: readonly string[];
};

/** One `field=value` / `field!=value` term of a field selector (`==` is read as `=`). */
export type FieldRequirement = { readonly field: string; readonly operator: '=' | '!='; readonly value: string };

const SUBDOMAIN_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*';
const SUBDOMAIN_MSG = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const NAME_MSG = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const VALUE_MSG = `a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`;

const compiled = new Map<string, RegExp>();

/**
 * `fmt` (a Go regex as the server prints it) as an anchored JavaScript RegExp, compiled once per
 * format (every label and name of every write is checked; the formats are a few constants).
 */
export function anchoredRegex(fmt: string): RegExp {
  let re = compiled.get(fmt);
  if (!re) compiled.set(fmt, (re = new RegExp(`^(?:${fmt})$`)));
  return re;
}

/** Go's validation.RegexError: the message, examples, and the regex, worded as the server words it. */
export function regexError(message: string, fmt: string, ...examples: string[]): string {
  const eg = examples.length === 0 ? '' : `e.g. ${examples.map((e) => `'${e}', `).join(' or ')}`;
  return `${message} (${eg}regex used for validation is '${fmt}')`;
}

/** Go's validation.MaxLenError, as a list so callers can spread it. */
export function maxLenErrors(value: string, max: number): string[] {
  return value.length > max ? [`must be no more than ${max} characters`] : [];
}

/** Reasons `value` is not a lowercase RFC 1123 subdomain (≤ 253 characters); empty when it is one. */
export function dns1123SubdomainErrors(value: string): string[] {
  const pattern = anchoredRegex(SUBDOMAIN_FMT).test(value) ? [] : [regexError(SUBDOMAIN_MSG, SUBDOMAIN_FMT, 'example.com')];
  return [...maxLenErrors(value, 253), ...pattern];
}

/** Reasons `key` is not a qualified name (`[prefix/]name`), the rule for label keys; empty when valid. */
export function qualifiedNameErrors(key: string): string[] {
  const nameRule = regexError(NAME_MSG, NAME_FMT, 'MyName', 'my.name', '123-abc');
  const parts = key.split('/');
  if (parts.length > 2) return [`a qualified name ${nameRule} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`];
  const [prefix, name = ''] = parts.length === 2 ? parts : [undefined, key];
  const errs: string[] = [];
  if (prefix === '') errs.push('prefix part must be non-empty');
  else if (prefix !== undefined) errs.push(...dns1123SubdomainErrors(prefix).map((m) => `prefix part ${m}`));
  if (name === '') errs.push('name part must be non-empty');
  else errs.push(...maxLenErrors(name, 63).map((m) => `name part ${m}`));
  if (!anchoredRegex(NAME_FMT).test(name)) errs.push(`name part ${nameRule}`);
  return errs;
}

/** Reasons `value` is not a valid label value (≤ 63 characters, may be empty); empty when valid. */
export function labelValueErrors(value: string): string[] {
  const fmt = `(${NAME_FMT})?`;
  const pattern = anchoredRegex(fmt).test(value) ? [] : [regexError(VALUE_MSG, fmt, 'MyValue', 'my_value', '12345')];
  return [...maxLenErrors(value, 63), ...pattern];
}

function badRequest(message: string): ApiError {
  return new ApiError(400, 'BadRequest', message);
}

function invalidValue(path: string, value: string, detail: string): string {
  return `${path}: Invalid value: ${JSON.stringify(value)}: ${detail}`;
}

function arityError(operator: LabelRequirement['operator'], count: number): string | undefined {
  if (operator === 'In' || operator === 'NotIn') return count === 0 ? "for 'in', 'notin' operators, values set can't be empty" : undefined;
  if (operator === 'Gt' || operator === 'Lt') return count !== 1 ? "for 'Gt', 'Lt' operators, exactly one value is required" : undefined;
  return count !== 0 ? 'values set must be empty for exists and does not exist' : undefined;
}

/** labels.NewRequirement: checks key, operator arity and values; returns the error text or a requirement. */
function newRequirement(key: string, operator: LabelRequirement['operator'], rawValues: readonly string[]): LabelRequirement | string {
  const values = [...new Set(rawValues)].sort();
  const errs: string[] = [];
  const keyErrs = qualifiedNameErrors(key);
  if (keyErrs.length > 0) errs.push(invalidValue('key', key, keyErrs.join('; ')));
  const arity = arityError(operator, values.length);
  if (arity) errs.push(`values: Invalid value: []string{${values.map((v) => JSON.stringify(v)).join(', ')}}: ${arity}`);
  values.forEach((v, i) => {
    if ((operator === 'Gt' || operator === 'Lt') && !/^[+-]?\d+$/.test(v)) {
      errs.push(invalidValue(`values[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer"));
    }
    const valueErrs = labelValueErrors(v);
    if (valueErrs.length > 0) errs.push(invalidValue(`values[${i}][${key}]`, v, valueErrs.join('; ')));
  });
  // Go's error aggregate: one error as is, several in brackets.
  if (errs.length > 0) return errs.length === 1 ? (errs[0] ?? '') : `[${errs.join(', ')}]`;
  return { key, operator, values };
}

type Token = { kind: 'id' | 'in' | 'notin' | '(' | ')' | ',' | '!' | '=' | '==' | '!=' | '>' | '<' | 'end'; lit: string };

const SYMBOLS = new Set(['(', ')', ',', '!', '=', '==', '!=', '>', '<']);
const isSpecial = (ch: string): boolean => '=!(),<>'.includes(ch) && ch !== '';
const isSpace = (ch: string): boolean => ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';

/** labels.Lexer: identifiers run until whitespace or a symbol; the longest symbol wins ("!=" is one). */
function lex(text: string): Token[] {
  const tokens: Token[] = [];
  let pos = 0;
  for (;;) {
    while (isSpace(text.charAt(pos))) pos++;
    if (pos >= text.length) return [...tokens, { kind: 'end', lit: '' }];
    const start = pos;
    if (isSpecial(text.charAt(pos))) pos += SYMBOLS.has(text.slice(pos, pos + 2)) ? 2 : 1;
    else while (pos < text.length && !isSpecial(text.charAt(pos)) && !isSpace(text.charAt(pos))) pos++;
    const lit = text.slice(start, pos);
    const kind = SYMBOLS.has(lit) || lit === 'in' || lit === 'notin' ? (lit as Token['kind']) : 'id';
    tokens.push({ kind, lit });
  }
}

/** A recursive-descent parser over the tokens, mirroring labels.Parser and its error wording. */
class SelectorParser {
  private position = 0;
  constructor(private readonly tokens: readonly Token[]) {}

  /** In value position `in` and `notin` are plain identifiers (`a in (in)` is valid). */
  private peek(asValue = true): Token {
    const t = this.tokens[this.position] ?? { kind: 'end', lit: '' };
    return asValue && (t.kind === 'in' || t.kind === 'notin') ? { kind: 'id', lit: t.lit } : t;
  }

  private next(asValue = true): Token {
    const t = this.peek(asValue);
    this.position++;
    return t;
  }

  parse(): LabelRequirement[] {
    const requirements: LabelRequirement[] = [];
    for (let t = this.peek(); t.kind !== 'end'; t = this.peek()) {
      if (t.kind !== 'id' && t.kind !== '!') throw badRequest(`found '${t.lit}', expected: !, identifier, or 'end of string'`);
      const r = this.requirement();
      if (typeof r === 'string') throw badRequest(`unable to parse requirement: ${r}`);
      requirements.push(r);
      const sep = this.next();
      if (sep.kind === 'end') break;
      if (sep.kind !== ',') throw badRequest(`found '${sep.lit}', expected: ',' or 'end of string'`);
      const after = this.peek();
      if (after.kind !== 'id' && after.kind !== '!') throw badRequest(`found '${after.lit}', expected: identifier after ','`);
    }
    return requirements;
  }

  private requirement(): LabelRequirement | string {
    let t = this.next();
    const negated = t.kind === '!';
    if (negated) t = this.next();
    if (t.kind !== 'id') return `found '${t.lit}', expected: identifier`;
    const keyErrs = qualifiedNameErrors(t.lit);
    if (keyErrs.length > 0) return invalidValue('<nil>', t.lit, keyErrs.join('; '));
    const following = this.peek().kind;
    if (negated || following === 'end' || following === ',') return newRequirement(t.lit, negated ? 'DoesNotExist' : 'Exists', []);
    const op = this.next(false);
    if (op.kind === 'in' || op.kind === 'notin') {
      const values = this.valueSet();
      return typeof values === 'string' ? values : newRequirement(t.lit, op.kind === 'in' ? 'In' : 'NotIn', values);
    }
    const exact = { '=': 'In', '==': 'In', '!=': 'NotIn', '>': 'Gt', '<': 'Lt' } as const;
    if (!(op.kind in exact)) return `found '${op.lit}', expected: '=', '!=', '==', 'in', notin'`;
    const value = this.peek();
    if (value.kind === 'end' || value.kind === ',') return newRequirement(t.lit, exact[op.kind as keyof typeof exact], ['']);
    this.position++;
    if (value.kind !== 'id') return `found '${value.lit}', expected: identifier`;
    return newRequirement(t.lit, exact[op.kind as keyof typeof exact], [value.lit]);
  }

  /** `(a,b)`; empty members are the empty string, as in `(a,,b)` and `()`. */
  private valueSet(): string[] | string {
    const open = this.next();
    if (open.kind !== '(') return `found '${open.lit}' expected: '('`;
    const first = this.peek();
    if (first.kind !== 'id' && first.kind !== ',' && first.kind !== ')') return `found '${first.lit}', expected: ',', ')' or identifier`;
    const values: string[] = [];
    for (let expectValue = true; ; ) {
      const t = this.next();
      if (t.kind === ')' || t.kind === ',') {
        if (expectValue) values.push('');
        if (t.kind === ')') return values;
        expectValue = true;
      } else if (t.kind === 'id' && expectValue) {
        values.push(t.lit);
        expectValue = false;
      } else {
        return expectValue ? `found '${t.lit}', expected: ',', or identifier` : `found '${t.lit}', expected: ',' or ')'`;
      }
    }
  }
}

/**
 * Parses a `labelSelector` query value (`a=b`, `a==b`, `a!=b`, `a in (x,y)`, `a notin (x)`, `a`,
 * `!a`, `a>1`, comma-separated, whitespace tolerated). The empty string selects everything. Bad
 * syntax or an invalid key/value is a 400 BadRequest worded as the API server words it.
 */
export function parseLabelSelector(text: string): LabelRequirement[] {
  return new SelectorParser(lex(text)).parse();
}

/** Whether `labels` satisfies every requirement; `NotIn` and `DoesNotExist` match a missing key. */
export function matchesLabels(requirements: readonly LabelRequirement[], labels: Readonly<Record<string, string | undefined>> | undefined): boolean {
  return requirements.every((r) => {
    const value = labels && Object.prototype.hasOwnProperty.call(labels, r.key) ? labels[r.key] : undefined;
    switch (r.operator) {
      case 'In': return value !== undefined && r.values.includes(value);
      case 'NotIn': return value === undefined || !r.values.includes(value);
      case 'Exists': return value !== undefined;
      case 'DoesNotExist': return value === undefined;
      // Gt and Lt compare integers; a value that is not one never matches.
      case 'Gt': return value !== undefined && /^[+-]?\d+$/.test(value) && Number(value) > Number(r.values[0]);
      case 'Lt': return value !== undefined && /^[+-]?\d+$/.test(value) && Number(value) < Number(r.values[0]);
      default: {
        const unreachable: never = r.operator;
        return unreachable;
      }
    }
  });
}

/**
 * The requirements of an object-form selector (`{matchLabels, matchExpressions}`), as
 * metav1.LabelSelectorAsSelector: `null`/`undefined` → `null` (selects nothing), `{}` → `[]`
 * (selects everything). An unknown operator or invalid key/values is a 400 BadRequest.
 */
export function labelSelectorRequirements(selector: unknown): LabelRequirement[] | null {
  if (selector === null || selector === undefined) return null;
  if (typeof selector !== 'object' || Array.isArray(selector)) throw badRequest('label selector must be an object');
  const { matchLabels, matchExpressions } = selector as { matchLabels?: unknown; matchExpressions?: unknown };
  const valid = (r: LabelRequirement | string): LabelRequirement => {
    if (typeof r === 'string') throw badRequest(r);
    return r;
  };
  const fromLabels = Object.entries(matchLabels ?? {}).map(([key, value]) => valid(newRequirement(key, 'In', [String(value)])));
  const fromExpressions = (Array.isArray(matchExpressions) ? (matchExpressions as unknown[]) : []).map((expr) => {
    const { key, operator, values } = (expr ?? {}) as { key?: unknown; operator?: unknown; values?: unknown };
    if (operator !== 'In' && operator !== 'NotIn' && operator !== 'Exists' && operator !== 'DoesNotExist') {
      throw badRequest(`${JSON.stringify(operator ?? '')} is not a valid label selector operator`);
    }
    return valid(newRequirement(String(key ?? ''), operator, Array.isArray(values) ? values.map(String) : []));
  });
  return [...fromLabels, ...fromExpressions];
}

/** Whether an object-form selector selects `labels`: a missing selector selects nothing, `{}` everything. */
export function matchLabelSelector(selector: unknown, labels: Readonly<Record<string, string | undefined>> | undefined): boolean {
  const requirements = labelSelectorRequirements(selector);
  return requirements !== null && matchesLabels(requirements, labels);
}

// Field labels each kind accepts besides metadata.name and metadata.namespace (as the kinds'
// field label conversion functions in k8s.io/kubernetes). `source` on Events reads source.component.
const FIELD_LABELS: Readonly<Record<string, readonly string[]>> = {
  Pod: ['spec.nodeName', 'spec.restartPolicy', 'spec.schedulerName', 'spec.serviceAccountName', 'status.phase', 'status.podIP', 'status.nominatedNodeName'],
  Event: ['involvedObject.kind', 'involvedObject.namespace', 'involvedObject.name', 'involvedObject.uid', 'involvedObject.apiVersion', 'involvedObject.resourceVersion', 'involvedObject.fieldPath', 'reason', 'reportingComponent', 'source', 'type'],
  Secret: ['type'],
  Namespace: ['status.phase'],
  Node: ['spec.unschedulable'],
};

function splitUnescaped(text: string, separator: string): string[] {
  const parts: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text.charAt(i) === '\\') i++;
    else if (text.charAt(i) === separator) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  return [...parts, text.slice(start)];
}

function unescapeFieldValue(raw: string): string {
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charAt(i);
    if (c === ',' || c === '=') throw badRequest(`invalid field selector: unescaped character in value: ${c}`);
    if (c !== '\\') out += c;
    else if (i + 1 < raw.length && '\\,='.includes(raw.charAt(i + 1))) out += raw.charAt(++i);
    else throw badRequest(`invalid field selector: invalid escape sequence: ${raw.slice(i, i + 2)}`);
  }
  return out;
}

/**
 * Parses a `fieldSelector` query value for `kind` (terms joined by `,`; operators `=`, `==`, `!=`;
 * `\,` `\=` `\\` escapes in values). A term without an operator, or a field the kind does not
 * support, is a 400 BadRequest (`field label not supported: <f>`).
 */
export function parseFieldSelector(kind: string, text: string): FieldRequirement[] {
  const supported = ['metadata.name', 'metadata.namespace', ...(FIELD_LABELS[kind] ?? [])];
  return splitUnescaped(text, ',')
    .filter((term) => term !== '')
    .map((term) => {
      const match = /^(.*?)(!=|==|=)(.*)$/s.exec(term);
      if (!match) throw badRequest(`invalid selector: '${text}'; can't understand '${term}'`);
      const [, lhs = '', op = '=', rhs = ''] = match;
      const field = lhs.trim();
      if (!supported.includes(field)) throw badRequest(`field label not supported: ${field}`);
      return { field, operator: op === '!=' ? '!=' : '=', value: unescapeFieldValue(rhs) };
    });
}

/** The string a field selector compares: a missing field reads as '' (so `spec.nodeName=` finds unscheduled pods). */
function fieldValue(obj: unknown, field: string): string {
  const path = field === 'source' ? ['source', 'component'] : field.split('.');
  let node: unknown = obj;
  for (const name of path) node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[name] : undefined;
  return node === undefined || node === null ? '' : String(node);
}

/** Whether `obj` satisfies every field requirement. */
export function matchesFieldSelector(requirements: readonly FieldRequirement[], obj: unknown): boolean {
  return requirements.every((r) => (fieldValue(obj, r.field) === r.value) === (r.operator === '='));
}
