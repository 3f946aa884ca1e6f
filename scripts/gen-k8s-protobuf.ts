/**
 * Regenerates lib/sim/protobuf/k8s-protobuf.json, the message definitions the simulated API server
 * decodes `application/vnd.kubernetes.protobuf` request bodies with. It reads the published API
 * definitions of Kubernetes 1.34 — `generated.proto` and `types.go` of k8s.io/api and
 * k8s.io/apimachinery at tag v0.34.1 — and keeps the messages reachable from the served built-in
 * kinds, with their field numbers, plus what only the Go types say: each field's JSON name, whether
 * it is `omitempty` or `omitzero`, a pointer, or inlined into its parent (`json:",inline"`).
 *
 *   npx tsx scripts/gen-k8s-protobuf.ts DIR
 *
 * DIR holds `k8s.io/api/<group>/v1/{generated.proto,types.go}` and
 * `k8s.io/apimachinery/pkg/.../generated.proto` (plus meta/v1 types.go), as in the two repositories.
 */
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import protobuf from 'protobufjs';
import { protoPackageOf } from '../lib/sim/protobuf/decode.js';
import { RESOURCES, apiVersionOf } from '../lib/sim/resources.js';

/** The messages kept (with everything they reach): every served built-in kind, and the envelope. */
function roots(): string[] {
  const kinds = RESOURCES.flatMap((r) => {
    const pkg = protoPackageOf(apiVersionOf(r));
    return pkg ? [`${pkg}.${r.kind}`] : [];
  });
  // kubectl auth can-i sends its SelfSubjectAccessReview as protobuf (k8s.io/api/authorization/v1).
  return [...kinds, 'k8s.io.api.authorization.v1.SelfSubjectAccessReview', 'k8s.io.apimachinery.pkg.runtime.Unknown'];
}

/** JSON facts of one proto field, from its Go struct tag: [jsonName, flags]; flags: o omitempty, p pointer, i inline, z omitzero. */
type FieldFacts = [string, string];

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

function goPackageOf(dir: string, file: string): string {
  return relative(dir, file).split('/').slice(0, -1).join('.');
}

const FIELD = /^\s*(?:(\w+)\s+)?(\*?[\w.[\]*]+)\s+`json:"([^"]*)".*?protobuf:"([^"]*)"/;

/** Reads every `type X struct` of a Go file: proto field name → facts. */
function goFacts(text: string): Map<string, Map<string, FieldFacts>> {
  const out = new Map<string, Map<string, FieldFacts>>();
  let current: Map<string, FieldFacts> | undefined;
  for (const line of text.split('\n')) {
    const start = /^type (\w+) struct \{/.exec(line);
    if (start?.[1]) {
      current = new Map();
      out.set(start[1], current);
      continue;
    }
    if (/^\}/.test(line)) current = undefined;
    const m = current && FIELD.exec(line);
    if (!current || !m) continue;
    const [, , goType = '', jsonTag = '', protoTag = ''] = m;
    // An embedded struct's tag may leave the name out: protobuf then names it after the type.
    const protoName = /name=(\w+)/.exec(protoTag)?.[1] ?? lowerFirst(goType.replace(/^\*/, ''));
    const [jsonName = '', ...opts] = jsonTag.split(',');
    if (!protoName || jsonName === '-') continue;
    const flags = (opts.includes('omitempty') ? 'o' : '') + (goType.startsWith('*') ? 'p' : '') + (opts.includes('inline') ? 'i' : '') + (opts.includes('omitzero') ? 'z' : '');
    current.set(protoName, [jsonName, flags]);
  }
  return out;
}

function lowerFirst(s: string): string {
  return s.charAt(0).toLowerCase() + s.slice(1);
}

function main(dir: string): void {
  const root = new protobuf.Root();
  const facts: Record<string, Record<string, FieldFacts>> = {};
  for (const file of walk(dir)) {
    if (file.endsWith('generated.proto')) protobuf.parse(readFileSync(file, 'utf8'), root, { keepCase: true });
    if (file.endsWith('types.go')) {
      const pkg = goPackageOf(dir, file);
      for (const [msg, fields] of goFacts(readFileSync(file, 'utf8'))) facts[`${pkg}.${msg}`] = Object.fromEntries(fields);
    }
  }
  root.resolveAll();
  const keep = new Map<string, protobuf.Type>();
  const visit = (t: protobuf.Type): void => {
    const name = t.fullName.slice(1);
    if (keep.has(name)) return;
    keep.set(name, t);
    for (const f of t.fieldsArray) if (f.resolvedType instanceof protobuf.Type) visit(f.resolvedType);
  };
  for (const name of roots()) visit(root.lookupType(name));
  const out = new protobuf.Root();
  for (const [name, t] of [...keep].sort(([a], [b]) => a.localeCompare(b))) {
    const pkg = name.slice(0, name.lastIndexOf('.'));
    // toJSON keeps the edition (proto2: explicit presence, so a pointer at zero stays on the wire).
    const copy = protobuf.Type.fromJSON(t.name, t.toJSON());
    (out.lookup(pkg) as protobuf.Namespace | null ?? out.define(pkg)).add(copy);
  }
  const json = Object.fromEntries([...keep.keys()].sort().filter((n) => facts[n]).map((n) => [n, facts[n]]));
  const doc = { source: 'k8s.io/api and k8s.io/apimachinery v0.34.1 (generated.proto, types.go)', protobuf: out.toJSON(), json };
  writeFileSync(join(import.meta.dirname, '..', 'lib', 'sim', 'protobuf', 'k8s-protobuf.json'), JSON.stringify(doc) + '\n');
  console.log(`${keep.size} messages, ${Object.keys(json).length} with Go field facts`);
}

main(process.argv[2] ?? '.');
