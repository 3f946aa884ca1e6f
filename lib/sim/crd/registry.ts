/**
 * What one API server serves: the built-in kinds plus the versions its established
 * CustomResourceDefinitions add. The store keeps it current from its own CRD writes, so routing,
 * discovery, OpenAPI and admission all see a CRD the moment it is stored, and stop seeing it when
 * it is gone.
 */
import type { KubeObject } from '../object.js';
import { RESOURCES, type ResourceDef } from '../resources.js';
import { type ServedVersion, servedVersions } from './definitions.js';
import type { StructuralSchema } from './schema.js';

/** The kind of CustomResourceDefinition objects. */
export const CRD_KIND = 'CustomResourceDefinition';

type Entry = { crdName: string; versions: ServedVersion[]; terminating: boolean };

/** The served resources of one API server. */
export class ResourceRegistry {
  private readonly byKindMap = new Map<string, Entry>();
  private cache: ResourceDef[] | undefined;

  /** Built-ins first, then each CRD's served versions (storage version first). */
  all(): readonly ResourceDef[] {
    if (!this.cache) this.cache = [...RESOURCES, ...[...this.byKindMap.values()].flatMap((e) => e.versions.map((v) => v.resource))];
    return this.cache;
  }

  /** The resource a kind is stored as (a CRD's storage version), or undefined. */
  byKind(kind: string): ResourceDef | undefined {
    return RESOURCES.find((r) => r.kind === kind) ?? this.byKindMap.get(kind)?.versions[0]?.resource;
  }

  /** Like `byKind`, but the kind must exist (a programming error otherwise). */
  mustByKind(kind: string): ResourceDef {
    const r = this.byKind(kind);
    if (!r) throw new Error(`unknown kind ${kind}`);
    return r;
  }

  /** The resource a URL addresses by group, version and plural. */
  byPlural(group: string, version: string, plural: string): ResourceDef | undefined {
    return this.all().find((r) => r.group === group && r.version === version && r.plural === plural);
  }

  /** The schema of a custom kind's stored version; undefined for built-ins. */
  schemaFor(kind: string): StructuralSchema | undefined {
    return this.byKindMap.get(kind)?.versions[0]?.schema;
  }

  /** The served version `version` of a custom kind (schema and printer columns), or undefined. */
  servedVersion(kind: string, version: string): ServedVersion | undefined {
    return this.byKindMap.get(kind)?.versions.find((v) => v.resource.version === version);
  }

  /** Whether the CRD of a custom kind is being deleted (no new objects of it are accepted). */
  isTerminating(kind: string): boolean {
    return this.byKindMap.get(kind)?.terminating ?? false;
  }

  /** What already serves `kind`: a built-in resource (`pods`) or a CRD's name; undefined when free. */
  ownerOfKind(kind: string): string | undefined {
    const builtIn = RESOURCES.find((r) => r.kind === kind);
    if (builtIn) return builtIn.group ? `${builtIn.plural}.${builtIn.group}` : builtIn.plural;
    return this.byKindMap.get(kind)?.crdName;
  }

  /** Takes a stored (or changed) CRD into account. */
  put(crd: KubeObject): void {
    const name = crd.metadata.name ?? '';
    this.drop(name);
    const versions = servedVersions(crd);
    const kind = versions[0]?.resource.kind;
    if (kind) this.byKindMap.set(kind, { crdName: name, versions, terminating: crd.metadata.deletionTimestamp !== undefined });
    this.cache = undefined;
  }

  /** Forgets a deleted CRD. */
  drop(crdName: string): void {
    for (const [kind, e] of this.byKindMap) if (e.crdName === crdName) this.byKindMap.delete(kind);
    this.cache = undefined;
  }
}
