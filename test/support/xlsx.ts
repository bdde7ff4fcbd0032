import { PassThrough } from 'node:stream';
import ExcelJS from 'exceljs';

/** A cell as exceljs writes it: a value, a formula (`{ formula, result }`), rich text, a date. */
export type XlsxCell = ExcelJS.CellValue;

/**
 * An XLSX workbook written by exceljs's streaming writer, as a buffer: a sheet per entry of
 * `sheets` (its rows in order; `null` rows are left empty), with styles (so that a date is a date
 * cell) and shared strings when asked.
 */
export async function xlsxOf(sheets: ReadonlyArray<ReadonlyArray<ReadonlyArray<XlsxCell> | null>>, options: { sharedStrings?: boolean } = {}): Promise<Buffer> {
  const output = new PassThrough();
  const chunks: Buffer[] = [];
  output.on('data', (chunk: Buffer) => chunks.push(chunk));
  const book = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: output, useStyles: true, useSharedStrings: options.sharedStrings ?? false });
  sheets.forEach((rows, index) => {
    const sheet = book.addWorksheet(`Sheet ${index + 1}`);
    rows.forEach((row, at) => {
      if (row) sheet.getRow(at + 1).values = [...row];
      sheet.getRow(at + 1).commit();
    });
    sheet.commit();
  });
  await book.commit();
  return Buffer.concat(chunks);
}
