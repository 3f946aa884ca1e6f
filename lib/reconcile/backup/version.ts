/**
 * TiKV version gates of the backup controllers. As v1: the version is the TiKV image tag, and an
 * unparsable tag (`latest`, a digest) counts as new enough for every gate (§1.5).
 */

/** Whether `tag` (e.g. `v7.5.1`) is at least `min` (`6.1.0`); true when `tag` is not a version. */
export function versionAtLeast(tag: string, min: string): boolean {
  const have = /^v?(\d+)\.(\d+)\.(\d+)/.exec(tag);
  if (!have) return true;
  const want = min.split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    const a = Number(have[i + 1]);
    const b = want[i] ?? 0;
    if (a !== b) return a > b;
  }
  return true;
}

/** The tag of an image reference (`pingcap/tikv:v7.5.1` → `v7.5.1`), '' when it has none. */
export function imageTag(image: string): string {
  const slash = image.lastIndexOf('/');
  const colon = image.lastIndexOf(':');
  return colon > slash ? image.slice(colon + 1) : '';
}
