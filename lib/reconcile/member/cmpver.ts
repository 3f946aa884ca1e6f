/**
 * Version gates on image tags, as TiDB Operator v1's `pkg/util/cmpver`: `latest`, `nightly` and
 * `master` (also with a `-suffix`) are newer than every release; a leading `v` is optional, missing
 * minor and patch numbers are 0, and pre-release and build suffixes are dropped (`v4.0.0-dev12`
 * compares as v4.0.0). A tag that is no version at all answers undefined, so the caller decides
 * (TiDB Operator skips a gated check when the comparison errs).
 */

/** A parsed release version, or `newest` for latest/nightly/master builds. */
export type ReleaseVersion = { readonly major: number; readonly minor: number; readonly patch: number } | 'newest';

const NEWEST = /^(latest|nightly|master)(-.*)?$/;
const SEMVER = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

/** The version a tag names (see the module comment), or undefined when it names none. */
export function parseReleaseVersion(tag: string): ReleaseVersion | undefined {
  if (NEWEST.test(tag)) return 'newest';
  const match = SEMVER.exec(tag);
  if (!match) return undefined;
  return { major: Number(match[1]), minor: Number(match[2] ?? 0), patch: Number(match[3] ?? 0) };
}

/**
 * Whether `tag` is at least `min` (a release such as `v5.1.2`): true for newest builds, undefined
 * when `tag` is no version (as cmpver's `Check` returning an error).
 */
export function isVersionAtLeast(tag: string, min: string): boolean | undefined {
  const version = parseReleaseVersion(tag);
  const floor = parseReleaseVersion(min);
  if (version === undefined || floor === undefined || floor === 'newest') return undefined;
  if (version === 'newest') return true;
  const order = [version.major - floor.major, version.minor - floor.minor, version.patch - floor.patch].find((d) => d !== 0) ?? 0;
  return order >= 0;
}

/** The tag of an image reference (`pingcap/tiflash:v7.5.0` → `v7.5.0`; no tag → `latest`, as the registry reads it). */
export function imageTagOf(image: string): string {
  const withoutDigest = image.split('@')[0] ?? image;
  const slash = withoutDigest.lastIndexOf('/');
  const colon = withoutDigest.lastIndexOf(':');
  return colon > slash ? withoutDigest.slice(colon + 1) : 'latest';
}
