import type { ImportRow } from '../interfaces/import.interface.js';
import type { ResolvedSearchOptions } from '../interfaces/search-options.interface.js';
import { invalidImport } from './import-errors.js';

/** The bounds of one import: the resource's `search.import*` options. */
export type ImportBounds = Pick<ResolvedSearchOptions, 'importMaxRows' | 'importMaxBytes' | 'importMaxRowBytes' | 'importBodyTimeout'>;

/** The rows of a file, and the columns (keys) it names that the import skips. */
export interface ImportFile {
  rows: ImportRow[];
  ignored: string[];
}

/** The header's column names (of a CSV file or an XLSX sheet): each named once, none empty. */
export function checkedHeader(names: string[]): string[] {
  const seen = new Set<string>();
  for (const name of names) {
    if (name.trim() === '') throw invalidImport(0, 'a column has no name');
    if (seen.has(name)) throw invalidImport(0, `the column ${name} is named twice`);
    seen.add(name);
  }
  return names;
}
