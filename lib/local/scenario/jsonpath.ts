/**
 * The JSONPath subset `waitFor: {jsonpath, equals}` uses to look into a TidbCluster:
 * `$` (optional, as is a kubectl-style `{…}` wrapper), `.field` (letters, digits, `_`, `-`),
 * `['field']` / `["field"]`, `[N]` (negative counts from the end), `.*` / `[*]`, and filters
 * `[?(@.field=='value')]` / `!=` with a string, number, boolean or null literal, on lists and on
 * the values of mappings. Compiled once when the file is read, so a bad path is a file error.
 *
 * A path selects zero or more values; its value is `null` for no match (so "no match equals null"),
 * the match itself for one, and the list of matches for several. Values compare as JSON:
 * key order does not matter, and `3` differs from `"3"`.
 */
import { jsonEqual } from '../../reconcile/engine/equal.js';

/** A literal a filter compares with. */
export type FilterLiteral = string | number | boolean | null;

/** One step of a compiled path. A filter's own path holds only `field` and `index` steps. */
export type JsonPathStep =
  | { readonly kind: 'field'; readonly name: string }
  | { readonly kind: 'index'; readonly index: number }
  | { readonly kind: 'wildcard' }
  | { readonly kind: 'filter'; readonly path: readonly JsonPathStep[]; readonly op: '==' | '!='; readonly value: FilterLiteral };

/** A compiled path and the text it came from. */
export type JsonPath = { readonly source: string; readonly steps: readonly JsonPathStep[] };

/** A compiled path, or one line saying what is wrong and where. */
export type CompileJsonPathResult = { readonly ok: true; readonly path: JsonPath } | { readonly ok: false; readonly error: string };

class PathSyntaxError extends Error {
  constructor(
    message: string,
    readonly column: number,
  ) {
    super(message);
  }
}

const IDENT = /[A-Za-z_][A-Za-z0-9_-]*/y;
const INTEGER = /-?(0|[1-9][0-9]*)/y;
const NUMBER = /-?(0|[1-9][0-9]*)(\.[0-9]+)?/y;

/** Compiles `source`; never throws. Errors read `invalid JSONPath "…": <what> at column N`. */
export function compileJsonPath(source: string): CompileJsonPathResult {
  try {
    return { ok: true, path: { source, steps: new PathParser(source).parse() } };
  } catch (err) {
    if (!(err instanceof PathSyntaxError)) throw err;
    return { ok: false, error: `invalid JSONPath ${JSON.stringify(source)}: ${err.message} at column ${err.column}` };
  }
}

/** Every value `path` selects in `root`, in document order. */
export function selectJsonPath(path: JsonPath, root: unknown): unknown[] {
  let current: unknown[] = [root];
  for (const step of path.steps) current = current.flatMap((value) => applyStep(step, value));
  return current;
}

/** The value of `path` in `root`: `null` for no match, the match for one, the list of matches for several. */
export function jsonPathValue(path: JsonPath, root: unknown): unknown {
  const matches = selectJsonPath(path, root);
  if (matches.length === 0) return null;
  return matches.length === 1 ? matches[0] : matches;
}

/** Whether the value of `path` in `root` equals `expected` as JSON (no match equals `null`). */
export function jsonPathEquals(path: JsonPath, root: unknown, expected: unknown): boolean {
  return jsonEqual(jsonPathValue(path, root), expected);
}

/**
 * Whether the value of `path` in `root` is an integer — a JSON number or a string of digits, compared
 * exactly (a TSO exceeds 2^53) — greater than `bound` (decimal digits). Anything else is not.
 */
export function jsonPathGreaterThan(path: JsonPath, root: unknown, bound: string): boolean {
  const value = jsonPathValue(path, root);
  const digits = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : typeof value === 'string' && /^-?\d+$/.test(value) ? value : undefined;
  return digits !== undefined && BigInt(digits) > BigInt(bound);
}

function applyStep(step: JsonPathStep, value: unknown): unknown[] {
  switch (step.kind) {
    case 'field':
      return isObject(value) && Object.hasOwn(value, step.name) ? [value[step.name]] : [];
    case 'index': {
      if (!Array.isArray(value)) return [];
      const i = step.index < 0 ? value.length + step.index : step.index;
      return i >= 0 && i < value.length ? [value[i]] : [];
    }
    case 'wildcard':
      return children(value);
    case 'filter':
      return children(value).filter((child) => filterMatches(step, child));
    default: {
      const unreachable: never = step;
      return unreachable;
    }
  }
}

function filterMatches(step: Extract<JsonPathStep, { kind: 'filter' }>, child: unknown): boolean {
  // An element without the compared field matches neither `==` nor `!=`.
  const found = selectJsonPath({ source: '', steps: step.path }, child);
  if (found.length === 0) return false;
  const equal = found[0] === step.value;
  return step.op === '==' ? equal : !equal;
}

function children(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  return isObject(value) ? Object.values(value) : [];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

class PathParser {
  private pos = 0;
  private readonly text: string;
  private readonly offset: number;

  constructor(source: string) {
    const trimmed = source.trim();
    const braced = trimmed.startsWith('{') && trimmed.endsWith('}');
    this.text = braced ? trimmed.slice(1, -1) : trimmed;
    this.offset = source.indexOf(trimmed) + (braced ? 1 : 0);
  }

  parse(): JsonPathStep[] {
    if (this.text === '') throw this.error('the path is empty');
    if (this.peek() === '$') this.pos++;
    else if (/^[A-Za-z_]/.test(this.text)) return this.parseSteps(this.fieldWithoutDot());
    return this.parseSteps([]);
  }

  private parseSteps(steps: JsonPathStep[]): JsonPathStep[] {
    while (this.pos < this.text.length) steps.push(this.step(false));
    return steps;
  }

  private fieldWithoutDot(): JsonPathStep[] {
    return [{ kind: 'field', name: this.match(IDENT, 'a field name') }];
  }

  /** One step; inside a filter only fields and indexes. */
  private step(inFilter: boolean): JsonPathStep {
    const c = this.peek();
    if (c === '.') {
      this.pos++;
      if (this.peek() === '.') throw this.error('recursive descent (..) is not supported');
      if (this.peek() === '*' && !inFilter) {
        this.pos++;
        return { kind: 'wildcard' };
      }
      return { kind: 'field', name: this.match(IDENT, 'a field name after "."') };
    }
    if (c === '[') return this.bracket(inFilter);
    throw this.error(`unexpected ${JSON.stringify(c)}`);
  }

  private bracket(inFilter: boolean): JsonPathStep {
    this.pos++;
    this.spaces();
    const c = this.peek();
    let step: JsonPathStep;
    if (c === "'" || c === '"') step = { kind: 'field', name: this.quoted() };
    else if (c === '*' && !inFilter) {
      this.pos++;
      step = { kind: 'wildcard' };
    } else if (c === '?' && !inFilter) step = this.filter();
    else step = { kind: 'index', index: Number(this.match(INTEGER, "an index, a quoted name, * or ?(…) after \"[\"")) };
    this.spaces();
    this.expect(']');
    return step;
  }

  private filter(): JsonPathStep {
    this.pos++;
    this.expect('(');
    this.spaces();
    this.expect('@');
    const path: JsonPathStep[] = [];
    while (this.peek() === '.' || this.peek() === '[') path.push(this.step(true));
    this.spaces();
    const op = this.text.startsWith('==', this.pos) ? '==' : this.text.startsWith('!=', this.pos) ? '!=' : undefined;
    if (op === undefined) throw this.error('expected == or != in the filter');
    this.pos += 2;
    this.spaces();
    const value = this.literal();
    this.spaces();
    this.expect(')');
    return { kind: 'filter', path, op, value };
  }

  private literal(): FilterLiteral {
    const c = this.peek();
    if (c === "'" || c === '"') return this.quoted();
    for (const [word, value] of [['true', true], ['false', false], ['null', null]] as const) {
      if (this.text.startsWith(word, this.pos)) {
        this.pos += word.length;
        return value;
      }
    }
    return Number(this.match(NUMBER, 'a string, number, true, false or null'));
  }

  private quoted(): string {
    const quote = this.peek();
    const start = this.pos;
    let out = '';
    for (this.pos++; this.pos < this.text.length; this.pos++) {
      const c = this.text[this.pos] ?? '';
      if (c === quote) {
        this.pos++;
        return out;
      }
      if (c === '\\') this.pos++;
      out += this.text[this.pos] ?? '';
    }
    this.pos = start;
    throw this.error('unterminated string');
  }

  private match(re: RegExp, what: string): string {
    re.lastIndex = this.pos;
    const m = re.exec(this.text);
    if (!m) throw this.error(`expected ${what}`);
    this.pos += m[0].length;
    return m[0];
  }

  private expect(c: string): void {
    if (this.peek() !== c) throw this.error(`expected ${JSON.stringify(c)}`);
    this.pos++;
  }

  private spaces(): void {
    while (this.peek() === ' ') this.pos++;
  }

  private peek(): string {
    return this.text[this.pos] ?? '';
  }

  private error(message: string): PathSyntaxError {
    const found = this.pos >= this.text.length && this.text !== '' ? ' (end of path)' : '';
    return new PathSyntaxError(`${message}${found}`, this.offset + this.pos + 1);
  }
}
