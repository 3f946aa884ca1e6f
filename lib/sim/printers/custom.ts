/**
 * The printer of a custom resource, built from its CRD version's `additionalPrinterColumns` as the
 * apiextensions server's table convertor does: NAME first, then each column in order, its cell the
 * first value its JSONPath selects (missing → null, which kubectl prints as an empty cell), converted by
 * the column's type: `integer` and `number` from JSON numbers, `boolean`, `string` (any value as
 * text), `date` as an age. A version without printer columns gets the server's default AGE column;
 * a column the JSONPath reader cannot compile falls back to the default table, as the server
 * falls back to default printing for an invalid printer specification.
 */
import { type JsonPath, compileJsonPath, selectJsonPath } from '../../local/scenario/jsonpath.js';
import type { KubeObject } from '../object.js';
import { CREATION_TIMESTAMP_DOC, type Cell, NAME_COLUMN, type TableColumn, type TablePrinter, since } from './format.js';
import { DEFAULT_PRINTER } from './default.js';

/** One entry of a CRD version's `additionalPrinterColumns` (apiextensions.k8s.io/v1). */
export type PrinterColumnDefinition = {
  readonly name: string;
  readonly type: string;
  readonly jsonPath: string;
  readonly format?: string;
  readonly description?: string;
  readonly priority?: number;
};

/** What a printer needs of a CRD version: its printer columns, if it lists any. */
export type PrinterColumnSource = { readonly additionalPrinterColumns?: readonly PrinterColumnDefinition[] };

/** The columns the server prints for a version that lists none (serverDefaultColumns). */
const SERVER_DEFAULT_COLUMNS: readonly PrinterColumnDefinition[] = [{ name: 'Age', type: 'date', description: CREATION_TIMESTAMP_DOC, jsonPath: '.metadata.creationTimestamp' }];

/** A JSON value as a cell of `type` (cellForJSONValue); a value of the wrong type is null. */
function cellForJsonValue(type: string, value: unknown, nowMs: number): Cell {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'string':
      return typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
    case 'date': {
      if (typeof value !== 'string') return null;
      return Number.isNaN(Date.parse(value)) ? '<invalid>' : since(value, nowMs);
    }
    default:
      return null;
  }
}

/** The printer of a custom resource version with these printer columns. */
export function customResourcePrinter(source: PrinterColumnSource): TablePrinter {
  const defs = source.additionalPrinterColumns?.length ? source.additionalPrinterColumns : SERVER_DEFAULT_COLUMNS;
  const paths: JsonPath[] = [];
  for (const def of defs) {
    const compiled = compileJsonPath(def.jsonPath);
    if (!compiled.ok) return DEFAULT_PRINTER;
    paths.push(compiled.path);
  }
  const columns: TableColumn[] = [
    NAME_COLUMN,
    ...defs.map((d) => ({
      name: d.name,
      type: d.type,
      format: d.format ?? '',
      description: d.description || `Custom resource definition column (in JSONPath format): ${d.jsonPath}`,
      priority: d.priority ?? 0,
    })),
  ];
  return {
    columns,
    cells: (obj: KubeObject, nowMs: number) => [obj.metadata.name ?? '', ...defs.map((d, i) => cellForJsonValue(d.type, selectJsonPath(paths[i] as JsonPath, obj)[0], nowMs))],
  };
}
