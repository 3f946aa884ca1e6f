/**
 * Validation of a (defaulted) TidbCluster, as TiDB Operator v1's `validate` step (§1.2): the CRD
 * schema of `@kubernetes-models/tidb-operator` (types, enums, `minimum`, quantity formats, required
 * fields), then the semantic checks the schema cannot express — a name every derived object name
 * can be built from, replica counts, storage sizes, TOML configs and images. Every problem names
 * its field the way a user writes it (`spec.pd.replicas`), so a Warning Event can say what to fix.
 */

import { TidbCluster as TidbClusterModel } from '@kubernetes-models/tidb-operator/pingcap.com/v1alpha1/TidbCluster';
import { parse as parseToml, TomlError } from 'smol-toml';

import { DEFAULT_MAX_REPLICAS } from '../../model/config.js';
import { clipForEcho, quoteForEcho } from '../../model/echo.js';
import type { TidbCluster } from '../../model/kube.js';
import { DEFAULT_BASE_IMAGES, isJsonObject, type ImageComponent } from './defaults.js';

/** Bounds validation applies besides the schema: `maxReplicas` per component. */
export type ValidationLimits = { readonly maxReplicas: number };

/** One thing wrong with a TidbCluster: the field (`spec.pd.replicas`) and what is wrong with it. */
export type ValidationProblem = { readonly field: string; readonly message: string };

type Json = Record<string, unknown>;
type AjvError = { instancePath?: string; keyword?: string; message?: string; params?: Json };

/** The components with replicas, a StatefulSet and a config, in TiDB Operator's order. */
const COMPONENTS = ['pd', 'tiflash', 'tikv', 'pump', 'tidb', 'ticdc', 'tiproxy'] as const;
/** A Service or pod name is a DNS label: at most 63 characters. */
const MAX_LABEL_LENGTH = 63;
// A StatefulSet's pods carry `controller-revision-hash: <set name>-<10-character hash>`, a label
// value of at most 63 characters, so the set's name may have at most 52.
const MAX_STATEFULSET_NAME_LENGTH = 52;
// Services are named `<tc>-pd`, …: a DNS-1035 label (starts with a letter), stricter than DNS-1123.
const DNS_1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
// An image tag, as the container image reference grammar: a word character, then up to 127 of
// word characters, dots and dashes.
const IMAGE_TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
// TiDB images are tagged `v8.5.0`; a bare `8.5.0` names an image that does not exist.
const BARE_VERSION = /^\d+(\.\d+)*([-.].*)?$/;
const QUANTITY = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+|[KMGTPE]i|[numkMGTPE])?$/;

/**
 * Every problem of `tc`, schema problems first, at most one per field, in a stable order; empty when
 * the cluster is valid. Reads `metadata` and `spec` only (the status is the reconciler's own). A
 * replica count above `limits.maxReplicas` is a problem of `spec.<component>.replicas`.
 */
export function validateTidbCluster(tc: TidbCluster, limits: ValidationLimits = { maxReplicas: DEFAULT_MAX_REPLICAS }): readonly ValidationProblem[] {
  const spec: Json = isJsonObject(tc.spec) ? tc.spec : {};
  const problems = [
    ...schemaProblems(tc),
    ...nameProblems(tc.metadata.name, spec),
    ...replicaProblems(spec, limits.maxReplicas),
    ...storageProblems(spec),
    ...configProblems(spec),
    ...versionProblems(spec),
    ...imageProblems(spec),
  ];
  const byField = new Map<string, ValidationProblem>();
  for (const problem of problems) if (!byField.has(problem.field)) byField.set(problem.field, problem);
  return [...byField.values()];
}

/** `field: message`, as Events and conditions print a problem. */
export function describeProblem(problem: ValidationProblem): string {
  return `${problem.field}: ${problem.message}`;
}

// --- the CRD schema ---

function schemaProblems(tc: TidbCluster): ValidationProblem[] {
  const data = { apiVersion: tc.apiVersion, kind: tc.kind, metadata: tc.metadata, spec: tc.spec };
  try {
    new TidbClusterModel(data).validate();
    return [];
  } catch (err) {
    const errors = (err as { errors?: unknown }).errors;
    if (!Array.isArray(errors)) return [{ field: 'spec', message: err instanceof Error ? err.message : String(err) }];
    return fromAjv(errors as AjvError[]);
  }
}

/** One problem per schema path; for int-or-string quantities (`oneOf`) the format error says most. */
function fromAjv(errors: readonly AjvError[]): ValidationProblem[] {
  const byPath = new Map<string, AjvError[]>();
  for (const error of errors) {
    const path = error.instancePath ?? '';
    byPath.set(path, [...(byPath.get(path) ?? []), error]);
  }
  return [...byPath.entries()].map(([path, group]) => {
    const isOneOf = group.some((e) => e.keyword === 'oneOf');
    const chosen = (isOneOf ? group.find((e) => e.keyword === 'format') : undefined) ?? group[0] ?? {};
    return ajvProblem(path, chosen);
  });
}

function ajvProblem(path: string, error: AjvError): ValidationProblem {
  const field = fieldOf(path);
  const params = error.params ?? {};
  if (error.keyword === 'required' && typeof params.missingProperty === 'string') {
    return { field: field === '' ? params.missingProperty : `${field}.${params.missingProperty}`, message: 'required' };
  }
  if (error.keyword === 'enum' && Array.isArray(params.allowedValues)) {
    return { field, message: `must be one of ${params.allowedValues.map(String).join(', ')}` };
  }
  return { field: field === '' ? 'spec' : field, message: error.message ?? 'is invalid' };
}

/** `/spec/tiflash/storageClaims/0/resources` → `spec.tiflash.storageClaims[0].resources`. */
function fieldOf(pointer: string): string {
  const segments = pointer.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  return segments.reduce((field, s) => {
    if (/^\d+$/.test(s)) return `${field}[${s}]`;
    if (/^[A-Za-z_][\w-]*$/.test(s)) return field === '' ? s : `${field}.${s}`;
    return `${field}[${quoteForEcho(s)}]`;
  }, '');
}

// --- semantic checks ---

function nameProblems(name: unknown, spec: Json): ValidationProblem[] {
  const field = 'metadata.name';
  if (typeof name !== 'string' || name === '') return [{ field, message: 'required' }];
  if (!DNS_1035_LABEL.test(name)) {
    const message = 'must be a DNS-1035 label: lowercase letters, digits and "-", starting with a letter and ending with a letter or digit';
    return [{ field, message }];
  }
  const derived = [{ name, what: 'TidbCluster', max: MAX_LABEL_LENGTH }];
  if (isJsonObject(spec.pd)) derived.push({ name: `${name}-discovery`, what: 'discovery Service', max: MAX_LABEL_LENGTH });
  for (const c of COMPONENTS) {
    if (isJsonObject(spec[c])) derived.push({ name: `${name}-${c}`, what: 'StatefulSet', max: MAX_STATEFULSET_NAME_LENGTH });
  }
  const worst = derived.sort((a, b) => b.name.length - b.max - (a.name.length - a.max))[0];
  if (worst === undefined || worst.name.length <= worst.max) return [];
  const message = `too long: the ${worst.what} name "${worst.name}" has ${worst.name.length} characters, at most ${worst.max} fit`;
  return [{ field, message }];
}

function replicaProblems(spec: Json, maxReplicas: number): ValidationProblem[] {
  const problems: ValidationProblem[] = [];
  for (const c of COMPONENTS) {
    const component = spec[c];
    if (!isJsonObject(component)) continue;
    const replicas = component.replicas;
    const field = `spec.${c}.replicas`;
    if (replicas === undefined) problems.push({ field, message: 'required' });
    else if (typeof replicas !== 'number' || !Number.isInteger(replicas)) problems.push({ field, message: 'must be integer' });
    else if (replicas < 0) problems.push({ field, message: 'must be >= 0' });
    else if (replicas > maxReplicas) problems.push({ field, message: `must be at most ${maxReplicas} (the reconciler's MAX_REPLICAS), got ${replicas}` });
  }
  return [...problems, ...pdToZeroProblems(spec)];
}

/**
 * PD at 0 replicas under components that still have replicas: TiDB Operator refuses to scale PD in
 * that far (`FailedScaleIn`); refused here up front. A cluster joining another cluster's PD
 * (`spec.cluster`, `spec.pdAddresses`) needs no PD of its own.
 */
function pdToZeroProblems(spec: Json): ValidationProblem[] {
  const pd = spec.pd;
  if (!isJsonObject(pd) || pd.replicas !== 0) return [];
  const pdAddresses = spec.pdAddresses;
  if (isJsonObject(spec.cluster) || (Array.isArray(pdAddresses) && pdAddresses.length > 0)) return [];
  const running = COMPONENTS.filter((c) => {
    const component = spec[c];
    return c !== 'pd' && isJsonObject(component) && typeof component.replicas === 'number' && component.replicas > 0;
  });
  if (running.length === 0) return [];
  return [{ field: 'spec.pd.replicas', message: `must be > 0 while ${running.join(', ')} have replicas (they need PD)` }];
}

function storageProblems(spec: Json): ValidationProblem[] {
  const problems: ValidationProblem[] = [];
  const check = (field: string, value: unknown, isRequired = false): void => {
    const message = value === undefined && !isRequired ? undefined : quantityProblem(value);
    if (message !== undefined) problems.push({ field, message });
  };
  for (const c of COMPONENTS) {
    const component = spec[c];
    if (!isJsonObject(component)) continue;
    for (const kind of ['requests', 'limits'] as const) {
      const resources = component[kind];
      if (isJsonObject(resources)) check(`spec.${c}.${kind}.storage`, resources.storage);
    }
    arrayOf(component.storageVolumes).forEach((v, i) => check(`spec.${c}.storageVolumes[${i}].storageSize`, v.storageSize));
  }
  const tiflash = spec.tiflash;
  if (isJsonObject(tiflash)) {
    // As TiDB Operator v1: TiFlash's data volumes are its storage claims, and it needs one at least.
    if (Array.isArray(tiflash.storageClaims) && tiflash.storageClaims.length === 0) {
      problems.push({ field: 'spec.tiflash.storageClaims', message: 'storageClaims should be configured at least one item' });
    }
    arrayOf(tiflash.storageClaims).forEach((claim, i) => {
      const requests = isJsonObject(claim.resources) ? claim.resources.requests : undefined;
      // As TiDB Operator v1.6: every TiFlash claim must say how much storage it wants.
      const field = `spec.tiflash.storageClaims[${i}].resources.requests.storage`;
      check(field, isJsonObject(requests) ? requests.storage : undefined, true);
    });
  }
  return problems;
}

const arrayOf = (value: unknown): Json[] => (Array.isArray(value) ? value.filter(isJsonObject) : []);

/** Why `value` is not a positive Kubernetes quantity (`10Gi`, `500M`, `1e9`), or undefined when it is one. */
export function quantityProblem(value: unknown): string | undefined {
  const amount = quantityValue(value);
  if (amount === undefined) return 'must be a quantity such as 10Gi';
  return amount > 0 ? undefined : 'must be greater than zero';
}

const SUFFIX: Readonly<Record<string, number>> = {
  '': 1, n: 1e-9, u: 1e-6, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
};

/**
 * The amount a Kubernetes quantity stands for (`1Gi` → 1073741824, `500m` → 0.5), or undefined when
 * `value` is not a quantity. Two spellings the API server may swap (`0.5` and `500m`) give one number.
 */
export function quantityValue(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const match = QUANTITY.exec(value);
  if (!match) return undefined;
  const sign = value.startsWith('-') ? -1 : 1;
  const number = sign * Number.parseFloat(match[1] ?? '');
  const suffix = match[3] ?? '';
  const multiplier = SUFFIX[suffix] ?? 10 ** Number(suffix.slice(1));
  return number * multiplier;
}

function configProblems(spec: Json): ValidationProblem[] {
  const problems: ValidationProblem[] = [];
  const check = (field: string, value: unknown): void => {
    const message = configProblem(value);
    if (message !== undefined) problems.push({ field, message });
  };
  for (const c of COMPONENTS) {
    const component = spec[c];
    if (!isJsonObject(component)) continue;
    const config = component.config;
    // TiFlash's config wraps two files: `config` (tiflash.toml) and `proxy` (the TiFlash proxy's).
    if (c === 'tiflash' && isJsonObject(config)) {
      check('spec.tiflash.config.config', config.config);
      check('spec.tiflash.config.proxy', config.proxy);
    } else check(`spec.${c}.config`, config);
  }
  return problems;
}

/** Why a component config is unusable: neither a map nor TOML text that parses. */
function configProblem(value: unknown): string | undefined {
  if (value === undefined || value === null || isJsonObject(value)) return undefined;
  if (typeof value !== 'string') return 'must be a TOML string or a map';
  try {
    parseToml(value);
    return undefined;
  } catch (err) {
    if (!(err instanceof TomlError)) return 'invalid TOML';
    const reason = (err.message.split('\n')[0] ?? '').replace(/^Invalid TOML document:\s*/, '');
    return `invalid TOML at line ${err.line}, column ${err.column}: ${clipForEcho(reason)}`;
  }
}

/**
 * `spec.version` and `spec.<component>.version` become the tag of `baseImage:<version>`, so each must
 * be an image tag, and — TiDB's images being tagged `v8.5.0` — not a bare version number.
 */
function versionProblems(spec: Json): ValidationProblem[] {
  const problems: ValidationProblem[] = [];
  const check = (field: string, value: unknown): void => {
    const message = versionProblem(value);
    if (message !== undefined) problems.push({ field, message });
  };
  check('spec.version', spec.version);
  for (const c of Object.keys(DEFAULT_BASE_IMAGES) as ImageComponent[]) {
    const component = spec[c];
    if (isJsonObject(component)) check(`spec.${c}.version`, component.version);
  }
  return problems;
}

/** Why a version cannot be an image tag (`v8.5.0`), or undefined when it can (or is unset). */
export function versionProblem(value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') return 'must be a string such as v8.5.0';
  if (!IMAGE_TAG.test(value)) return `${quoteForEcho(value)} is not a valid image tag (letters, digits, '_', '.' and '-', at most 128, such as v8.5.0)`;
  if (BARE_VERSION.test(value)) return `"${value}" is not a TiDB image tag: versions are tagged with a leading v (v${value})`;
  return undefined;
}

function imageProblems(spec: Json): ValidationProblem[] {
  const problems: ValidationProblem[] = [];
  for (const c of Object.keys(DEFAULT_BASE_IMAGES) as ImageComponent[]) {
    const component = spec[c];
    if (isJsonObject(component) && !hasImage(component, spec.version)) {
      const message = `no image: set spec.${c}.image, or a version (spec.version or spec.${c}.version) for spec.${c}.baseImage`;
      problems.push({ field: `spec.${c}.image`, message });
    }
  }
  return problems;
}

/** As TiDB Operator's image rule: `image`, else `baseImage:<version>` (a base image with its own tag also works). */
function hasImage(component: Json, clusterVersion: unknown): boolean {
  const filled = (v: unknown): boolean => typeof v === 'string' && v !== '';
  if (filled(component.image)) return true;
  const base = component.baseImage;
  if (!filled(base)) return false;
  const lastSegment = String(base).split('/').pop() ?? '';
  return filled(component.version) || filled(clusterVersion) || lastSegment.includes(':') || lastSegment.includes('@');
}
