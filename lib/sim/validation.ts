/**
 * Object validation on create and update, as the API server runs it after decoding and defaulting:
 * metadata (name format per kind, namespace, labels, annotations) and the spec rules of the kinds we
 * serve. Returns field causes worded like the server's (`Invalid value: "DB_1": a lowercase RFC 1123
 * subdomain must consist of …`); the store turns a non-empty list into a 422 Invalid.
 */
import { isValidQuantity, parseQuantity } from './quantity.js';
import {
  anchoredRegex,
  dns1123SubdomainErrors,
  labelSelectorRequirements,
  labelValueErrors,
  matchesLabels,
  maxLenErrors,
  qualifiedNameErrors,
  regexError,
} from './selectors.js';

/** One problem with a field, as a Status cause: `message` is the text after `<field>: `. */
export type Cause = {
  field: string;
  message: string;
  reason: 'FieldValueInvalid' | 'FieldValueRequired' | 'FieldValueDuplicate' | 'FieldValueNotSupported' | 'FieldValueTooLong' | 'FieldValueForbidden';
};

type JsonObject = Record<string, unknown>;
type NameRule = (name: string) => string[];

const LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const LABEL_MSG = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1035_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const DNS1035_MSG = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const CONFIG_KEY_FMT = '[-._a-zA-Z0-9]+';
const CONFIG_KEY_MSG = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";
const ACCESS_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];
const SERVICE_TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];

/** Reasons `value` is not a lowercase RFC 1123 label (≤ 63 characters); empty when it is one. */
export function dns1123LabelErrors(value: string): string[] {
  if (anchoredRegex(LABEL_FMT).test(value)) return maxLenErrors(value, 63);
  // A valid subdomain that is not a label can only be wrong by its dots (length is checked apart).
  const detail = dns1123SubdomainErrors(value).length === 0 ? 'must not contain dots' : regexError(LABEL_MSG, LABEL_FMT, 'my-name', '123-abc');
  return [...maxLenErrors(value, 63), detail];
}

function dns1035LabelErrors(value: string): string[] {
  const pattern = anchoredRegex(DNS1035_FMT).test(value) ? [] : [regexError(DNS1035_MSG, DNS1035_FMT, 'my-name', 'abc-123')];
  return [...maxLenErrors(value, 63), ...pattern];
}

function pathSegmentErrors(value: string): string[] {
  if (value === '.' || value === '..') return [`may not be '${value}'`];
  return ['/', '%'].filter((c) => value.includes(c)).map((c) => `may not contain '${c}'`);
}

function configKeyErrors(key: string): string[] {
  const errs = [...maxLenErrors(key, 253)];
  if (!anchoredRegex(CONFIG_KEY_FMT).test(key)) errs.push(regexError(CONFIG_KEY_MSG, CONFIG_KEY_FMT, 'key.name', 'KEY_NAME', 'key-name'));
  if (key === '.' || key === '..') errs.push(`must not be '${key}'`);
  else if (key.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

// Name formats that differ from the default DNS-1123 subdomain (as each kind's ValidateXName).
const NAME_RULES: Readonly<Record<string, NameRule>> = {
  Namespace: dns1123LabelErrors,
  Service: dns1035LabelErrors,
  StatefulSet: dns1123LabelErrors,
  PersistentVolume: pathSegmentErrors,
  Role: pathSegmentErrors,
  RoleBinding: pathSegmentErrors,
  ClusterRole: pathSegmentErrors,
  ClusterRoleBinding: pathSegmentErrors,
};

/** A value as Go's field.Error prints it: strings quoted, numbers bare, null as null, the rest as JSON. */
function goValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return value === null || value === undefined ? 'null' : JSON.stringify(value);
}

/** A label map as Go's %#v prints it: `map[string]string{"a":"b", "c":"d"}`, keys sorted. */
function goStringMap(map: Readonly<Record<string, unknown>>): string {
  return `map[string]string{${Object.keys(map).sort().map((k) => `${JSON.stringify(k)}:${JSON.stringify(String(map[k]))}`).join(', ')}}`;
}

const invalidAs = (field: string, shown: string, detail: string): Cause => ({ field, reason: 'FieldValueInvalid', message: `Invalid value: ${shown}: ${detail}` });
const invalid = (field: string, value: unknown, detail: string): Cause => invalidAs(field, goValue(value), detail);
const required = (field: string, detail = ''): Cause => ({ field, reason: 'FieldValueRequired', message: detail ? `Required value: ${detail}` : 'Required value' });
const duplicate = (field: string, value: unknown): Cause => ({ field, reason: 'FieldValueDuplicate', message: `Duplicate value: ${goValue(value)}` });
const notSupported = (field: string, value: unknown, supported: readonly string[]): Cause => ({
  field,
  reason: 'FieldValueNotSupported',
  message: `Unsupported value: ${goValue(value)}: supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}`,
});

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const objectAt = (obj: unknown, key: string): JsonObject => (isObject(obj) && isObject(obj[key]) ? obj[key] : {});
const listAt = (obj: unknown, key: string): unknown[] => (isObject(obj) && Array.isArray(obj[key]) ? obj[key] : []);
const stringAt = (obj: unknown, key: string): string => (isObject(obj) && typeof obj[key] === 'string' ? obj[key] : '');

/**
 * Validates `obj` as a `kind` the server is about to store and returns every cause found (none when
 * valid), in the order the server reports them: metadata first, then the kind's spec. Kinds without
 * spec rules here (TidbCluster, Endpoints, Event, …) get the metadata checks only.
 */
export function validateObject(kind: string, obj: unknown): Cause[] {
  if (!isObject(obj)) return [invalid('<root>', obj, 'must be an object')];
  const causes = validateMetadata(objectAt(obj, 'metadata'), NAME_RULES[kind] ?? dns1123SubdomainErrors, 'metadata');
  const spec = objectAt(obj, 'spec');
  switch (kind) {
    case 'Pod':
      return [...causes, ...validatePodSpec(spec, 'spec')];
    case 'Service':
      return [...causes, ...validateServiceSpec(spec)];
    case 'StatefulSet':
    case 'Deployment':
      return [...causes, ...validateWorkloadSpec(kind, spec)];
    case 'Job':
      return [...causes, ...validateJobSpec(spec)];
    case 'PersistentVolumeClaim':
      return [...causes, ...validateClaimSpec(spec)];
    case 'PersistentVolume':
      return [...causes, ...validateVolumeSpec(spec)];
    case 'StorageClass':
      return [...causes, ...validateStorageClass(obj)];
    case 'ConfigMap':
    case 'Secret':
      return [...causes, ...validateDataKeys(obj)];
    case 'Lease':
      return [...causes, ...validateLeaseSpec(spec)];
    case 'VolumeAttributesClass':
      // As ValidateVolumeAttributesClass: the CSI driver that applies it is required.
      return stringAt(obj, 'driverName') === '' ? [...causes, required('driverName')] : causes;
    default:
      return causes;
  }
}

function validateMetadata(meta: JsonObject, nameRule: NameRule, path: string): Cause[] {
  const causes: Cause[] = [];
  const name = stringAt(meta, 'name');
  const generateName = stringAt(meta, 'generateName');
  // A generated name's prefix may end in '-': as the server's maskTrailingDash, the last two characters become 'a'.
  const masked = generateName.length > 1 && generateName.endsWith('-') ? `${generateName.slice(0, -2)}a` : generateName;
  if (generateName) causes.push(...nameRule(masked).map((m) => invalid(`${path}.generateName`, generateName, m)));
  if (name) causes.push(...nameRule(name).map((m) => invalid(`${path}.name`, name, m)));
  else if (!generateName && path === 'metadata') causes.push(required(`${path}.name`, 'name or generateName is required'));
  const namespace = stringAt(meta, 'namespace');
  if (namespace) causes.push(...dns1123LabelErrors(namespace).map((m) => invalid(`${path}.namespace`, namespace, m)));
  for (const [key, value] of Object.entries(objectAt(meta, 'labels'))) {
    causes.push(...qualifiedNameErrors(key).map((m) => invalid(`${path}.labels`, key, m)));
    causes.push(...labelValueErrors(String(value)).map((m) => invalid(`${path}.labels`, value, m)));
  }
  const annotations = objectAt(meta, 'annotations');
  for (const key of Object.keys(annotations)) causes.push(...qualifiedNameErrors(key.toLowerCase()).map((m) => invalid(`${path}.annotations`, key, m)));
  const annotationBytes = Object.entries(annotations).reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(String(v)), 0);
  if (annotationBytes > 262144) causes.push({ field: `${path}.annotations`, reason: 'FieldValueTooLong', message: 'Too long: may not be more than 262144 bytes' });
  return causes;
}

function validatePodSpec(spec: JsonObject, path: string): Cause[] {
  const containers = listAt(spec, 'containers');
  const causes: Cause[] = containers.length === 0 ? [required(`${path}.containers`)] : [];
  const seen = new Set<string>();
  for (const field of ['initContainers', 'containers']) {
    listAt(spec, field).forEach((container, i) => causes.push(...validateContainer(container, `${path}.${field}[${i}]`, seen)));
  }
  const restartPolicy = stringAt(spec, 'restartPolicy');
  if (restartPolicy && !['Always', 'OnFailure', 'Never'].includes(restartPolicy)) {
    causes.push(notSupported(`${path}.restartPolicy`, restartPolicy, ['Always', 'OnFailure', 'Never']));
  }
  return causes;
}

/** Container names are DNS labels, unique across init and regular containers. */
function validateContainer(container: unknown, path: string, seen: Set<string>): Cause[] {
  const causes: Cause[] = [];
  const name = stringAt(container, 'name');
  if (!name) causes.push(required(`${path}.name`));
  else if (seen.has(name)) causes.push(duplicate(`${path}.name`, name));
  else causes.push(...dns1123LabelErrors(name).map((m) => invalid(`${path}.name`, name, m)));
  seen.add(name);
  if (!stringAt(container, 'image')) causes.push(required(`${path}.image`));
  listAt(container, 'ports').forEach((port, i) => {
    const containerPort = isObject(port) ? port['containerPort'] : undefined;
    if (containerPort === undefined || containerPort === 0) causes.push(required(`${path}.ports[${i}].containerPort`));
    else if (!isPortNumber(containerPort)) causes.push(invalid(`${path}.ports[${i}].containerPort`, containerPort, 'must be between 1 and 65535, inclusive'));
  });
  return causes;
}

function isPortNumber(value: unknown): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 65535;
}

function validateServiceSpec(spec: JsonObject): Cause[] {
  const causes: Cause[] = [];
  const type = stringAt(spec, 'type');
  if (type && !SERVICE_TYPES.includes(type)) causes.push(notSupported('spec.type', type, SERVICE_TYPES));
  const ports = listAt(spec, 'ports');
  // Headless (clusterIP: None) and ExternalName services may have no ports.
  if (ports.length === 0 && stringAt(spec, 'clusterIP') !== 'None' && type !== 'ExternalName') causes.push(required('spec.ports'));
  ports.forEach((port, i) => {
    if (ports.length > 1 && !stringAt(port, 'name')) causes.push(required(`spec.ports[${i}].name`));
    const value = isObject(port) ? (port['port'] ?? 0) : 0;
    if (!isPortNumber(value)) causes.push(invalid(`spec.ports[${i}].port`, value, 'must be between 1 and 65535, inclusive'));
  });
  return causes;
}

/**
 * StatefulSet and Deployment: replicas ≥ 0, a non-empty selector that the template labels satisfy,
 * restartPolicy Always. As the server, a missing selector also fails the template-labels check, and
 * only a Deployment's pod template is validated as a pod spec (the StatefulSet code skips it).
 * serviceName is optional, as in current Kubernetes.
 */
function validateWorkloadSpec(kind: 'StatefulSet' | 'Deployment', spec: JsonObject): Cause[] {
  const causes: Cause[] = [];
  const replicas = spec['replicas'];
  if (typeof replicas === 'number' && replicas < 0) causes.push(invalid('spec.replicas', replicas, 'must be greater than or equal to 0'));
  const selector = spec['selector'];
  if (selector === undefined || selector === null) causes.push(required('spec.selector'));
  else if (Object.keys(objectAt(selector, 'matchLabels')).length + listAt(selector, 'matchExpressions').length === 0) {
    causes.push(invalid('spec.selector', selector, `empty selector is invalid for ${kind.toLowerCase()}`));
  }
  const template = objectAt(spec, 'template');
  const templateMeta = objectAt(template, 'metadata');
  const labels = Object.fromEntries(Object.entries(objectAt(templateMeta, 'labels')).map(([k, v]) => [k, String(v)]));
  const requirements = selectorRequirements(selector);
  if (requirements === undefined) causes.push(invalid('spec.selector', selector, 'invalid label selector'));
  else if (requirements === null || (requirements.length > 0 && !matchesLabels(requirements, labels))) {
    causes.push(invalidAs('spec.template.metadata.labels', goStringMap(labels), '`selector` does not match template `labels`'));
  }
  causes.push(...validateMetadata(templateMeta, dns1123SubdomainErrors, 'spec.template.metadata'));
  const podSpec = objectAt(template, 'spec');
  if (kind === 'Deployment') causes.push(...validatePodSpec(podSpec, 'spec.template.spec'));
  const restartPolicy = stringAt(podSpec, 'restartPolicy');
  if (restartPolicy && restartPolicy !== 'Always') causes.push(notSupported('spec.template.spec.restartPolicy', restartPolicy, ['Always']));
  return causes;
}

/**
 * A Job (pkg/apis/batch/validation ValidateJobSpec): non-negative counts, a positive
 * activeDeadlineSeconds, the template a valid pod spec whose restartPolicy is OnFailure or Never.
 * The selector is generated by the server (job-strategy.ts), so it is not required here.
 */
function validateJobSpec(spec: JsonObject): Cause[] {
  const causes: Cause[] = [];
  for (const field of ['parallelism', 'completions', 'backoffLimit']) {
    const v = spec[field];
    if (typeof v === 'number' && v < 0) causes.push(invalid(`spec.${field}`, v, 'must be greater than or equal to 0'));
  }
  const deadline = spec['activeDeadlineSeconds'];
  if (typeof deadline === 'number' && deadline <= 0) causes.push(invalid('spec.activeDeadlineSeconds', deadline, 'must be greater than 0'));
  const podSpec = objectAt(objectAt(spec, 'template'), 'spec');
  causes.push(...validatePodSpec(podSpec, 'spec.template.spec'));
  // The server defaults an unset restartPolicy to Always before validating (SetDefaults_PodSpec).
  const restartPolicy = stringAt(podSpec, 'restartPolicy') || 'Always';
  if (restartPolicy !== 'OnFailure' && restartPolicy !== 'Never') causes.push(notSupported('spec.template.spec.restartPolicy', restartPolicy, ['OnFailure', 'Never']));
  return causes;
}

/** The selector's requirements; `null` when there is none (it selects nothing), `undefined` when it is malformed. */
function selectorRequirements(selector: unknown): ReturnType<typeof labelSelectorRequirements> | undefined {
  try {
    return labelSelectorRequirements(selector);
  } catch {
    return undefined;
  }
}

function validateClaimSpec(spec: JsonObject): Cause[] {
  const causes: Cause[] = [];
  const modes = listAt(spec, 'accessModes');
  if (modes.length === 0) causes.push(required('spec.accessModes', 'at least 1 access mode is required'));
  for (const mode of modes) if (typeof mode !== 'string' || !ACCESS_MODES.includes(mode)) causes.push(notSupported('spec.accessModes', mode, ACCESS_MODES));
  const requests = objectAt(objectAt(spec, 'resources'), 'requests');
  const storage = requests['storage'];
  if (storage === undefined) causes.push(required('spec.resources[storage]'));
  else if (!isValidQuantity(storage)) {
    causes.push(invalid('spec.resources[storage]', storage, "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"));
  } else if (parseQuantity(storage as string | number) <= 0) causes.push(invalid('spec.resources[storage]', String(storage), 'must be greater than zero'));
  return causes;
}

const RECLAIM_POLICIES = ['Delete', 'Recycle', 'Retain'];

/** A volume's reclaim policy is one the PV controller knows. */
function validateVolumeSpec(spec: JsonObject): Cause[] {
  const policy = spec['persistentVolumeReclaimPolicy'];
  if (policy === undefined || (typeof policy === 'string' && RECLAIM_POLICIES.includes(policy))) return [];
  return [notSupported('spec.persistentVolumeReclaimPolicy', policy, RECLAIM_POLICIES)];
}

/** A class names its provisioner; its reclaim policy and binding mode are known values when given. */
function validateStorageClass(obj: JsonObject): Cause[] {
  const causes: Cause[] = [];
  if (stringAt(obj, 'provisioner') === '') causes.push(required('provisioner'));
  const policy = obj['reclaimPolicy'];
  if (policy !== undefined && policy !== 'Delete' && policy !== 'Retain') causes.push(notSupported('reclaimPolicy', policy, ['Delete', 'Retain']));
  const mode = obj['volumeBindingMode'];
  if (mode !== undefined && mode !== 'Immediate' && mode !== 'WaitForFirstConsumer') causes.push(notSupported('volumeBindingMode', mode, ['Immediate', 'WaitForFirstConsumer']));
  return causes;
}

/** ConfigMap and Secret keys are config keys; a ConfigMap key may not be in both data and binaryData. */
function validateDataKeys(obj: JsonObject): Cause[] {
  const causes: Cause[] = [];
  const binary = objectAt(obj, 'binaryData');
  for (const field of ['data', 'stringData', 'binaryData']) {
    for (const key of Object.keys(objectAt(obj, field))) {
      causes.push(...configKeyErrors(key).map((m) => invalid(`${field}[${key}]`, key, m)));
      if (field === 'data' && obj['kind'] !== 'Secret' && key in binary) causes.push(invalid(`data[${key}]`, key, 'duplicate of key present in binaryData'));
    }
  }
  return causes;
}

/**
 * A Lease's spec, as `ValidateLeaseSpec` (pkg/apis/coordination/validation/validation.go):
 * `leaseDurationSeconds` and `leaseTransitions` when set must be greater than 0 and non-negative.
 */
function validateLeaseSpec(spec: JsonObject): Cause[] {
  const causes: Cause[] = [];
  const duration = spec['leaseDurationSeconds'];
  if (typeof duration === 'number' && duration <= 0) causes.push(invalid('spec.leaseDurationSeconds', duration, 'must be greater than 0'));
  const transitions = spec['leaseTransitions'];
  if (typeof transitions === 'number' && transitions < 0) causes.push(invalid('spec.leaseTransitions', transitions, 'must be greater than or equal to 0'));
  return causes;
}
