/**
 * TiDB version tags as TiDB Operator v1 compares them (go-version over `vX.Y.Z[-pre]`): which
 * version pairs support the smooth upgrade (§2.4, `smooth_upgrade.go`). A tag that is not a
 * `v`-prefixed version (`latest`, `nightly`, a digest) compares as nothing: no feature that needs a
 * version is used for it.
 */

/** A parsed version: numbers, and whether a pre-release suffix makes it sort before its release. */
type Parsed = { readonly parts: readonly [number, number, number]; readonly pre: boolean };

function parse(version: string): Parsed | undefined {
  const match = /^v(\d+)\.(\d+)\.(\d+)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/.exec(version);
  if (!match) return undefined;
  return { parts: [Number(match[1]), Number(match[2]), Number(match[3])], pre: match[4] !== undefined };
}

/** −1, 0 or 1 as `a` sorts before, with or after `b`; undefined when either is no version. */
export function compareVersions(a: string, b: string): number | undefined {
  const x = parse(a);
  const y = parse(b);
  if (!x || !y) return undefined;
  for (let i = 0; i < 3; i++) {
    const d = (x.parts[i] ?? 0) - (y.parts[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return x.pre === y.pre ? 0 : x.pre ? -1 : 1;
}

const gte = (v: string, min: string): boolean => (compareVersions(v, min) ?? -1) >= 0;
const lt = (v: string, max: string): boolean => (compareVersions(v, max) ?? 1) < 0;
const eq = (v: string, other: string): boolean => compareVersions(v, other) === 0;

/** The tag of an image (`pingcap/tidb:v7.5.0` → `v7.5.0`); `""` for none or a digest reference. */
export function imageTagOf(image: string): string {
  if (image === '' || image.includes('@')) return '';
  const at = image.lastIndexOf(':');
  return at < 0 || at === image.length - 1 || image.slice(at).includes('/') ? '' : image.slice(at + 1);
}

/** How a version pair supports the smooth upgrade: not at all, on its own, or through `/upgrade/start`. */
export type SmoothUpgradeSupport = 'Unsupported' | 'AutoSupportedNoop' | 'SwitchControlled';

/** As TiDB Operator's `classifySmoothUpgrade` for `source` → `target`. */
export function classifySmoothUpgrade(source: string, target: string): SmoothUpgradeSupport {
  if (!parse(source) || !parse(target) || lt(source, 'v7.1.0') || !lt(source, target)) return 'Unsupported';
  const auto =
    (eq(source, 'v7.1.0') && ['v7.1.1', 'v7.2.0', 'v7.3.0'].some((t) => eq(target, t))) ||
    (eq(source, 'v7.1.1') && ['v7.2.0', 'v7.3.0'].some((t) => eq(target, t))) ||
    (eq(source, 'v7.2.0') && eq(target, 'v7.3.0'));
  if (auto) return 'AutoSupportedNoop';
  const in712 = (v: string): boolean => gte(v, 'v7.1.2') && lt(v, 'v7.2.0');
  const switchControlled = (in712(source) && in712(target)) || ((in712(source) || gte(source, 'v7.4.0')) && gte(target, 'v7.4.0'));
  return switchControlled ? 'SwitchControlled' : 'Unsupported';
}
