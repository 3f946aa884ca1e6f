/**
 * Image tags as versions, compared the way TiDB Operator's cmpver does: a leading `v` is optional,
 * pre-release and build suffixes are ignored (`v4.0.0-dev12` is v4.0.0), and `latest`, `nightly`
 * and `master` count as newer than any release.
 */

/** A comparable version; `newest` for latest/nightly/master. */
export type Version = { major: number; minor: number; patch: number } | 'newest';

/** The tag of an image reference (`pingcap/pd:v7.5.0` → `v7.5.0`; no tag → `latest`). */
export function imageTag(image: string): string {
  const withoutDigest = image.split('@')[0] ?? image;
  const slash = withoutDigest.lastIndexOf('/');
  const colon = withoutDigest.lastIndexOf(':');
  return colon > slash ? withoutDigest.slice(colon + 1) : 'latest';
}

/** The repository of an image without registry host and tag (`registry/pingcap/pd:v1` → `pingcap/pd`). */
export function imageRepository(image: string): string {
  const withoutDigest = image.split('@')[0] ?? image;
  const slash = withoutDigest.lastIndexOf('/');
  const colon = withoutDigest.lastIndexOf(':');
  const name = colon > slash ? withoutDigest.slice(0, colon) : withoutDigest;
  const parts = name.split('/');
  // A first part with a dot or a port is a registry host (gcr.io/..., localhost:5000/...).
  if (parts.length > 2 || (parts.length === 2 && /[.:]/.test(parts[0] ?? ''))) {
    return parts.slice(/[.:]/.test(parts[0] ?? '') || parts[0] === 'localhost' ? 1 : 0).join('/');
  }
  return name;
}

/** Parses a tag; undefined when it is not a version at all. */
export function parseVersion(tag: string): Version | undefined {
  if (['latest', 'nightly', 'master'].includes(tag)) return 'newest';
  const match = /^v?(\d+)\.(\d+)\.(\d+)/.exec(tag);
  if (!match) return undefined;
  return { major: Number(match[1]), minor: Number(match[2]), patch: Number(match[3]) };
}

/** Whether `tag` is at least `min` (e.g. `v8.5.2`); an unparsable tag counts as newest. */
export function isAtLeast(tag: string, min: string): boolean {
  const have = parseVersion(tag) ?? 'newest';
  const want = parseVersion(min);
  if (have === 'newest' || want === undefined) return true;
  if (want === 'newest') return false;
  if (have.major !== want.major) return have.major > want.major;
  if (have.minor !== want.minor) return have.minor > want.minor;
  return have.patch >= want.patch;
}

/** The version string a component reports for its image tag (`v7.5.0`; other tags as they are). */
export function reportedVersion(tag: string): string {
  const v = parseVersion(tag);
  if (v === undefined || v === 'newest') return tag;
  return `v${v.major}.${v.minor}.${v.patch}`;
}
