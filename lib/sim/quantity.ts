/**
 * Kubernetes resource quantities (`10Gi`, `500m`, `1.5G`, `1e3`, `100`), as resource.ParseQuantity
 * reads them: a signed decimal number and one optional suffix, either binary SI (Ki … Ei), decimal
 * SI (n u m "" k M G T P E) or a decimal exponent (e3, E-2).
 */
import { ApiError } from './api-error.js';

// As resource.ErrFormatWrong words it; the server sends this text when a quantity does not parse.
const FORMAT_WRONG = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

// The number, then an exponent (tried first, so "1E3" is 1000 and "1E" is one exa), a binary or a
// decimal suffix.
const QUANTITY = /^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(?:[eE]([+-]?[0-9]+)|(Ki|Mi|Gi|Ti|Pi|Ei)|([numkMGTPE]))?$/;

const BINARY_POWER: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL_EXPONENT: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

/**
 * The value of a quantity in base units (bytes, cores, …): `10Gi` → 10737418240, `500m` → 0.5,
 * `1.5G` → 1500000000, `1e3` → 1000. A JSON number is taken as is (the server accepts `cpu: 1`).
 * Anything else is a 400 BadRequest with the server's message.
 */
export function parseQuantity(value: string | number): number {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new ApiError(400, 'BadRequest', FORMAT_WRONG);
    return value;
  }
  const match = QUANTITY.exec(value);
  if (!match) throw new ApiError(400, 'BadRequest', FORMAT_WRONG);
  const [, number = '0', exponent, binary, decimal] = match;
  if (binary !== undefined) return Number(number) * 2 ** (BINARY_POWER[binary] ?? 0);
  // Scale in decimal text ("500e-3"), not by multiplying floats, so 500m is exactly 0.5.
  const power = exponent !== undefined ? Number(exponent) : decimal !== undefined ? (DECIMAL_EXPONENT[decimal] ?? 0) : 0;
  return Number(`${number}e${power}`);
}

/** Whether `value` is a quantity the API server would accept (a string in the grammar, or a finite number). */
export function isValidQuantity(value: unknown): boolean {
  if (typeof value === 'number') return Number.isFinite(value);
  return typeof value === 'string' && QUANTITY.test(value);
}
