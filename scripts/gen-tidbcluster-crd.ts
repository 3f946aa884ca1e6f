/**
 * Generates the project's TidbCluster CustomResourceDefinition (lib/sim/crd/tidbcluster-crd.json.gz)
 * from the schema the project already depends on, @kubernetes-models/tidb-operator: the structure,
 * descriptions, enums and required fields from its type declarations (read with the TypeScript
 * compiler), and whether a number is an integer from its compiled JSON-schema validator (probed
 * with a fraction at each numeric field). Printer columns are TiDB Operator's.
 *
 * Run: npx tsx scripts/gen-tidbcluster-crd.ts
 */
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';

import { TIDB_CLUSTER_PRINTER_COLUMNS } from '../lib/sim/printers/index.js';

type Schema = Record<string, unknown>;
type Seg = { prop: string } | { item: true } | { map: true };

const require = createRequire(import.meta.url);
const ROOT = join(import.meta.dirname, '..');
const OUT = join(ROOT, 'lib', 'sim', 'crd', 'tidbcluster-crd.json.gz');
const PKG = dirname(require.resolve('@kubernetes-models/tidb-operator/package.json'));
type Validator = ((data: unknown) => boolean) & { errors?: { instancePath: string; keyword: string; params: { type?: string } }[] | null };
// The package exports no schema path; its compiled validator is read from the file itself.
const { validate } = (await import(pathToFileURL(join(PKG, '_schemas', 'ComGithubPingcapTidbOperatorPkgApisPingcapV1alpha1TidbCluster.js')).href)) as { validate: Validator };


function program(): { checker: ts.TypeChecker; root: ts.Type } {
  const declFile = join(PKG, 'pingcap.com', 'v1alpha1', 'TidbCluster.d.ts');
  const prog = ts.createProgram([declFile], { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, strict: true, noEmit: true, baseUrl: dirname(declFile) });
  const checker = prog.getTypeChecker();
  const source = prog.getSourceFile(declFile);
  if (!source) throw new Error(`cannot read ${declFile}`);
  let root: ts.Type | undefined;
  source.forEachChild((node) => {
    if (ts.isInterfaceDeclaration(node) && node.name.text === 'ITidbCluster') root = checker.getTypeAtLocation(node);
  });
  if (!root) throw new Error('ITidbCluster not found');
  return { checker, root };
}

/** A sample TidbCluster with `value` at `path` (arrays of one item, maps of one key). */
function sampleAt(path: Seg[], value: unknown): unknown {
  let v = value;
  for (let i = path.length - 1; i >= 0; i--) {
    const s = path[i] as Seg;
    v = 'prop' in s ? { [s.prop]: v } : 'item' in s ? [v] : { k: v };
  }
  return v;
}

function pointer(path: Seg[]): string {
  return path.map((s) => '/' + ('prop' in s ? s.prop : 'item' in s ? '0' : 'k')).join('');
}

/** integer or number, as the compiled validator says for the field at `path`. */
function numberType(path: Seg[]): 'integer' | 'number' {
  validate(sampleAt(path, 0.5));
  const errors = validate.errors ?? [];
  return errors.some((e) => e.instancePath === pointer(path) && e.keyword === 'type' && e.params.type === 'integer') ? 'integer' : 'number';
}

/**
 * The doc comment of a TiDB Operator field. Fields of Kubernetes' own types (pod templates,
 * affinity, …) go without: their descriptions would make the CRD several megabytes, past what the
 * API server stores, and `kubectl explain` of those types is served by the built-in schemas.
 */
function describe(checker: ts.TypeChecker, sym: ts.Symbol): string | undefined {
  const file = (sym.valueDeclaration ?? sym.declarations?.[0])?.getSourceFile().fileName ?? '';
  if (!file.includes('@kubernetes-models/tidb-operator/')) return undefined;
  const text = ts.displayPartsToString(sym.getDocumentationComment(checker)).trim();
  return text || undefined;
}

function schemaOf(checker: ts.TypeChecker, type: ts.Type, path: Seg[], stack: ts.Type[]): Schema {
  const flags = type.getFlags();
  if (flags & ts.TypeFlags.Any || flags & ts.TypeFlags.Unknown) return { 'x-kubernetes-preserve-unknown-fields': true };
  if (type.isUnion()) {
    const parts = type.types.filter((t) => !(t.getFlags() & (ts.TypeFlags.Undefined | ts.TypeFlags.Null)));
    const nullable = parts.length < type.types.length && type.types.some((t) => t.getFlags() & ts.TypeFlags.Null);
    const literals = parts.filter((t) => t.isStringLiteral()) as ts.StringLiteralType[];
    let s: Schema;
    if (literals.length === parts.length && literals.length > 0) s = { type: 'string', enum: literals.map((l) => l.value) };
    else if (parts.every((t) => t.getFlags() & (ts.TypeFlags.BooleanLiteral | ts.TypeFlags.Boolean))) s = { type: 'boolean' };
    else if (parts.length === 2 && parts.some((t) => t.getFlags() & ts.TypeFlags.String) && parts.some((t) => t.getFlags() & ts.TypeFlags.Number)) {
      s = { anyOf: [{ type: 'integer' }, { type: 'string' }], 'x-kubernetes-int-or-string': true };
    } else if (parts.length === 1 && parts[0]) s = schemaOf(checker, parts[0], path, stack);
    else throw new Error(`unsupported union at ${pointer(path)}: ${checker.typeToString(type)}`);
    return nullable ? { ...s, nullable: true } : s;
  }
  if (flags & ts.TypeFlags.String || type.isStringLiteral()) return type.isStringLiteral() ? { type: 'string', enum: [type.value] } : { type: 'string' };
  if (flags & ts.TypeFlags.Number) return { type: numberType(path) };
  if (flags & (ts.TypeFlags.Boolean | ts.TypeFlags.BooleanLiteral)) return { type: 'boolean' };
  if (checker.isArrayType(type)) {
    const item = checker.getTypeArguments(type as ts.TypeReference)[0];
    if (!item) throw new Error(`array without item type at ${pointer(path)}`);
    return { type: 'array', items: schemaOf(checker, item, [...path, { item: true }], stack) };
  }
  if (stack.includes(type)) return { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  const index = checker.getIndexInfoOfType(type, ts.IndexKind.String);
  const props = checker.getPropertiesOfType(type);
  if (index && props.length === 0) {
    return { type: 'object', additionalProperties: schemaOf(checker, index.type, [...path, { map: true }], [...stack, type]) };
  }
  const properties: Record<string, Schema> = {};
  const required: string[] = [];
  for (const p of props) {
    const decl = p.valueDeclaration ?? p.declarations?.[0];
    if (!decl) continue;
    const pType = checker.getTypeOfSymbolAtLocation(p, decl);
    const sub = path.length === 0 && p.name === 'metadata' ? { type: 'object' } : schemaOf(checker, pType, [...path, { prop: p.name }], [...stack, type]);
    const description = describe(checker, p);
    properties[p.name] = description ? { description, ...sub } : sub;
    if (!(p.flags & ts.SymbolFlags.Optional) && !(path.length === 0 && p.name === 'metadata')) required.push(p.name);
  }
  return { type: 'object', properties, ...(required.length ? { required: required.sort() } : {}) };
}

function main(): void {
  const { checker, root } = program();
  const schema = schemaOf(checker, root, [], []);
  const props = schema.properties as Record<string, Schema>;
  // Objects carry apiVersion and kind as strings of any value the server accepts (it sets them).
  props.apiVersion = { type: 'string' };
  props.kind = { type: 'string' };
  schema.required = ['spec'];
  schema.description = 'TidbCluster is the control script\'s spec';
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'tidbclusters.pingcap.com', annotations: { 'tidb-reconciler/generated-from': '@kubernetes-models/tidb-operator' } },
    spec: {
      group: 'pingcap.com',
      names: { kind: 'TidbCluster', listKind: 'TidbClusterList', plural: 'tidbclusters', singular: 'tidbcluster', shortNames: ['tc'], categories: ['all'] },
      scope: 'Namespaced',
      versions: [{ name: 'v1alpha1', served: true, storage: true, additionalPrinterColumns: TIDB_CLUSTER_PRINTER_COLUMNS, schema: { openAPIV3Schema: schema }, subresources: { status: {} } }],
    },
  };
  const json = JSON.stringify(crd);
  writeFileSync(OUT, gzipSync(json, { level: 9 }));
  process.stdout.write(`${OUT}: ${json.length} bytes of JSON, ${gzipSync(json, { level: 9 }).length} gzipped\n`);
}

main();
