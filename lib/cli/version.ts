/**
 * The version `tidb-reconciler --version` prints: the package's own, read from the package.json
 * beside `lib/` once, when the command starts.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE_JSON = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'package.json');

/** The package version, e.g. `0.1.0`. */
export const VERSION: string = (JSON.parse(readFileSync(PACKAGE_JSON, 'utf8')) as { version: string }).version;
