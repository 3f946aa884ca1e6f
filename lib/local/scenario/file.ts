/**
 * Parses and validates a scenario file (docs/SCENARIOS.md) into a `Scenario`. A file is either
 * accepted whole — every default applied, every name and duration checked — or rejected with ONE
 * line naming the file, the line, the field path and what is wrong, e.g.
 * `pd-failover.yaml:14: timeline[3].fault.kind: unknown fault kind "pod-dwn" (expected one of: …)`.
 * Nothing in the file is ignored: unknown fields, verbs and fault kinds are errors.
 */
import type { Document } from 'yaml';
import { checkEksPlacement } from './eks-clusters.js';
import { isAlias, isMap, isNode, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';

import { DEFAULT_SEED } from './defaults.js';
import { buildNameRules } from './names.js';
import { nodeNames } from '../../sim/nodes.js';
import type { FieldPath } from './reader.js';
import { expectMapping, FieldError, formatPath, readInteger, readString, rejectUnknownFields, required } from './reader.js';
import { readAccessEntries } from './access-entries.js';
import { readExpect } from './expect.js';
import { checkEntryPlacement, clusterOfEks, readPlacedObjects } from './eks-entries.js';
import { withPodIdentityAssociations } from './pod-identity.js';
import { readCluster, readClusters, readConfig, readSim } from './sections.js';
import { readTimeline } from './timeline.js';
import type { Scenario, TidbClusterManifest } from './types.js';
import { MAX_SEED } from './types.js';

/** The top-level fields of a scenario file. */
export const SCENARIO_FIELDS = ['name', 'description', 'seed', 'config', 'sim', 'cluster', 'clusters', 'objects', 'accessEntries', 'timeline', 'expect'] as const;

/**
 * The outcome of parsing a file. On failure `error` is the one line to print (exit 2); `path` is
 * the field path it names (empty for a YAML syntax error) and `line` the 1-based line, when known.
 */
export type ParseScenarioResult =
  | { readonly ok: true; readonly scenario: Scenario }
  | { readonly ok: false; readonly error: string; readonly path: string; readonly line?: number };

/** `cluster`: the TidbCluster comes from elsewhere (a live cluster); the file must then have no `cluster:`. */
export type ParseScenarioOptions = { readonly cluster?: Record<string, unknown> };

/**
 * Parses `text` (the contents of `fileName`). Never throws for a bad file: the result says what is
 * wrong. An accepted scenario has every default applied and nothing unchecked.
 */
export function parseScenario(text: string, fileName: string, options: ParseScenarioOptions = {}): ParseScenarioResult {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  const syntax = doc.errors[0];
  if (syntax !== undefined) {
    return failure(fileName, '', lineCounter.linePos(syntax.pos[0]).line, `invalid YAML: ${syntax.message}`);
  }
  let raw: unknown;
  try {
    raw = doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    return failure(fileName, '', undefined, `invalid YAML: ${err instanceof Error ? err.message : String(err)}`);
  }
  const lineOf = (path: FieldPath): number | undefined => {
    const offset = offsetOf(doc, path);
    return offset === undefined ? undefined : lineCounter.linePos(offset).line;
  };
  try {
    return { ok: true, scenario: readScenario(raw, fileName, lineOf, options) };
  } catch (err) {
    if (!(err instanceof FieldError)) throw err;
    return failure(fileName, formatPath(err.path), lineOf(err.at), err.message);
  }
}

function readScenario(raw: unknown, fileName: string, lineOf: (path: FieldPath) => number | undefined, options: ParseScenarioOptions): Scenario {
  if (raw === null || raw === undefined) throw new FieldError([], 'the file is empty (expected a mapping with name, cluster and timeline)');
  const root = expectMapping(raw, [], 'a mapping with name, cluster and timeline');
  rejectUnknownFields(root, [], SCENARIO_FIELDS);
  const name = readString(required(root, 'name', []), ['name']);
  const description = 'description' in root ? readDescription(root['description']) : '';
  const seed = 'seed' in root ? readInteger(root['seed'], ['seed'], 0, MAX_SEED) : DEFAULT_SEED;
  const config = readConfig(root['config']);
  const sim = readSim(root['sim']);
  if (options.cluster !== undefined && 'cluster' in root) throw new FieldError(['cluster'], 'the cluster comes from --from-kubeconfig: leave cluster out of the file');
  if (options.cluster !== undefined && 'clusters' in root) throw new FieldError(['clusters'], 'the cluster comes from --from-kubeconfig: leave clusters out of the file');
  if ('cluster' in root && 'clusters' in root) throw new FieldError(['clusters'], 'give either cluster (one TidbCluster) or clusters (a list), not both');
  const clusters = 'clusters' in root && options.cluster === undefined ? readClusters(root['clusters']) : [readCluster(options.cluster ?? required(root, 'cluster', []))];
  const [cluster, ...others] = clusters as [TidbClusterManifest, ...TidbClusterManifest[]];
  // The timeline's verbs act on the first cluster: it must be one the functions watch.
  if (config.watchNamespaces !== undefined && !config.watchNamespaces.includes(cluster.metadata.namespace)) {
    throw new FieldError(['config', 'watchNamespaces'], `the first cluster's namespace ${JSON.stringify(cluster.metadata.namespace)} is not watched: list it, or put a watched cluster first`);
  }
  // An entry or object naming its EKS cluster (`eks:`) defaults to the namespace of that cluster's TidbCluster.
  const namespaceOfEks = (eks: string): string => (clusterOfEks(sim.eksClusters, clusters, eks) ?? cluster).metadata.namespace;
  const placed = readPlacedObjects(root['objects'], cluster.metadata.namespace, namespaceOfEks);
  const firstEks = sim.eksClusters?.[0]?.name;
  const objects = placed.filter((p) => p.eks === undefined || p.eks === firstEks).map((p) => p.object);
  const further = placed.filter((p) => p.eks !== undefined && p.eks !== firstEks);
  const eksObjects = further.length === 0 ? {} : { eksObjects: Object.fromEntries([...new Set(further.map((p) => p.eks ?? ''))].map((eks) => [eks, further.filter((p) => p.eks === eks).map((p) => p.object)])) };
  const accessEntries = readAccessEntries(root['accessEntries']);
  const nodes = sim.nodePools ? nodeNames(sim.nodePools) : undefined;
  // Patches act on the first cluster; pods of every cluster may be named.
  const rules = { ...buildNameRules(cluster, root['timeline'], sim.nodes, nodes), others: others.map((c) => buildNameRules(c, undefined, sim.nodes, nodes)) };
  const timeline = readTimeline(root['timeline'], rules, lineOf, cluster.metadata.namespace, namespaceOfEks);
  const expect = readExpect(root['expect'], timeline.length);
  checkEksPlacement(sim.eksClusters, clusters, timeline);
  checkEntryPlacement(sim.eksClusters, clusters, timeline, placed.map((p) => p.eks));
  // Pod Identity associations default to the first cluster's namespace, known only now.
  const simWithAssociations = withPodIdentityAssociations(sim, root['sim'], cluster.metadata.namespace);
  return { fileName, name, description, seed, config, sim: simWithAssociations, cluster, clusters, objects, ...eksObjects, ...(accessEntries.length > 0 ? { accessEntries } : {}), timeline, ...(expect === undefined ? {} : { expect }) };
}

function readDescription(value: unknown): string {
  if (value === null) return '';
  if (typeof value !== 'string') throw new FieldError(['description'], 'expected free text (a string)');
  return value;
}

function failure(fileName: string, path: string, line: number | undefined, message: string): ParseScenarioResult {
  const where = line === undefined ? fileName : `${fileName}:${line}`;
  const what = path === '' ? message : `${path}: ${message}`;
  // One line, whatever the message held.
  const error = `${where}: ${what}`.replace(/\s*\n\s*/g, ' ').trim();
  return line === undefined ? { ok: false, error, path } : { ok: false, error, path, line };
}

/** The source offset of the deepest node on `path` (the key, for a mapping entry). */
function offsetOf(doc: Document, path: FieldPath): number | undefined {
  let node: unknown = doc.contents;
  let offset = startOf(node);
  for (const segment of path) {
    if (isAlias(node)) node = node.resolve(doc);
    let next: unknown;
    let at: number | undefined;
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(segment));
      next = pair?.value;
      at = pair === undefined ? undefined : startOf(pair.key);
    } else if (isSeq(node) && typeof segment === 'number') {
      next = node.items[segment];
      at = startOf(next);
    }
    if (at === undefined) break;
    offset = at;
    node = next;
  }
  return offset;
}

function startOf(node: unknown): number | undefined {
  return isNode(node) ? node.range?.[0] : undefined;
}
