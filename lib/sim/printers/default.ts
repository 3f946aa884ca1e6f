/**
 * The server's default table (rest.NewDefaultTableConvertor), for a kind without a printer of its
 * own: NAME and CREATED AT, the creation time in RFC 3339.
 */
import { CREATION_TIMESTAMP_DOC, NAME_COLUMN, type TablePrinter, createdAt } from './format.js';

/** Default table printer: NAME, CREATED AT (a date column; kubectl prints it as an age). */
export const DEFAULT_PRINTER: TablePrinter = {
  columns: [NAME_COLUMN, { name: 'Created At', type: 'date', description: CREATION_TIMESTAMP_DOC }],
  cells: (obj) => [obj.metadata.name ?? '', createdAt(obj)],
};
