import { readdirSync, readlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Readable } from 'node:stream';
import type { ImportColumns } from '../../../src/import/import-cells.js';
import { readImportFile, type ImportBounds } from '../../../src/import/import-reader.js';
import { jest } from '@jest/globals';
import { xlsxOf } from '../../support/xlsx.js';
import { seededRandom } from '../../support/seeded-random.js';
import { ModelRoutesException } from '../../../src/errors/model-routes.exception.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function importXlsxSpec(): void {
  const columns: ImportColumns = {
    ignored: new Set(['__v']),
    whole: new Set(['tags']),
    scalars: new Map([
      ['qty', 'number'],
      ['paid', 'boolean'],
    ]),
  };
  const bounds: ImportBounds = { importMaxRows: 3, importMaxBytes: 64 * 1024, importMaxRowBytes: 200, importBodyTimeout: 1000 };
  const TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
  const read = (file: Buffer, within: ImportBounds = bounds) =>
    readImportFile(Object.assign(Readable.from([file]), { headers: { 'content-type': TYPE } }), 'xlsx', within, columns);
  /** The temporary files exceljs set a sheet aside in (tmp's names: `tmp-<pid>-...`). */
  const temporaryFiles = () => readdirSync(tmpdir()).filter((name) => name.startsWith(`tmp-${process.pid}-`));
  /** The descriptors still open on such a file (`tmp.file()` opens one that only its cleanup closes). */
  const temporaryDescriptors = () =>
    readdirSync('/proc/self/fd').filter((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`).includes(`/tmp-${process.pid}-`);
      } catch {
        return false; // closed while listed (the listing's own descriptor)
      }
    });
  // Every read leaves none: the sheets exceljs set aside are gone, and their descriptors closed, whether the file was read or refused.
  afterEach(() => expect({ files: temporaryFiles(), descriptors: temporaryDescriptors() }).toEqual({ files: [], descriptors: [] }));
  const refused = (code: string, message: RegExp | string) => expect.objectContaining({ code, message: expect.stringMatching(message) });

  it("reads the first sheet: a header, typed cells as a CSV record's text, empty rows skipped, no ' taken off", async () => {
    const file = await xlsxOf([
      [
        ['code', 'qty', 'paid', 'when', 'address.city', 'tags', 'note', '__v'],
        ['A', 2.5, true, new Date('2026-01-02T03:04:05.000Z'), 'Lyon', '["x"]', "'=1+1", 3],
        null,
        ['B', 'many', false],
      ],
      [['other'], ['sheet']],
    ]);
    expect(await read(file)).toEqual({
      rows: [
        { row: 1, value: { code: 'A', qty: 2.5, paid: true, when: '2026-01-02T03:04:05.000Z', address: { city: 'Lyon' }, tags: ['x'], note: "'=1+1" } },
        { row: 2, value: { code: 'B', qty: 'many', paid: false } },
      ],
      ignored: ['__v'],
    });
  });

  it('reads shared strings as Excel writes them, rich text as its text', async () => {
    const file = await xlsxOf(
      [
        [
          ['code', 'note'],
          ['A', 'same'],
          ['B', { richText: [{ text: 'bold ', font: { bold: true } }, { text: 'and not' }] }],
        ],
      ],
      { sharedStrings: true },
    );
    expect((await read(file)).rows.map((row) => row.value)).toEqual([
      { code: 'A', note: 'same' },
      { code: 'B', note: 'bold and not' },
    ]);
  });

  it('refuses a formula, an error value, a cell beyond the header and a header without a name (400 MR_INVALID_IMPORT, naming the row)', async () => {
    await expect(
      read(
        await xlsxOf([
          [
            ['code', 'qty'],
            ['A', { formula: 'B1*2', result: 4 }],
          ],
        ]),
      ),
    ).rejects.toEqual(refused('MR_INVALID_IMPORT', /^Row 1 .*B2 holds a formula/));
    await expect(read(await xlsxOf([[['code'], ['A'], [{ error: '#N/A' }]]]))).rejects.toEqual(refused('MR_INVALID_IMPORT', /^Row 2 .*error value \(#N\/A\)/));
    await expect(read(await xlsxOf([[['code'], ['A', 'x']]]))).rejects.toEqual(refused('MR_INVALID_IMPORT', /^Row 1 .*beyond the header/));
    await expect(read(await xlsxOf([[['code', null, 'qty'], ['A']]]))).rejects.toEqual(refused('MR_INVALID_IMPORT', /^The header row .*no name/));
  });

  it('refuses what is no whole XLSX file: truncated, random bytes, empty, a zip without a sheet (400 MR_INVALID_IMPORT)', async () => {
    const file = await xlsxOf([[['code'], ['A']]]);
    for (const bytes of [
      file.subarray(0, file.length - 30),
      file.subarray(0, file.length >> 1),
      file.subarray(0, 200),
      Buffer.from('PK'),
      Buffer.alloc(0),
      Buffer.from('code\nA\n'),
      Buffer.alloc(3000, 7),
    ]) {
      await expect(read(bytes)).rejects.toEqual(refused('MR_INVALID_IMPORT', /not (a whole )?XLSX file/));
    }
    await expect(read(Buffer.from('504b0506000000000000000000000000000000000000', 'hex'))).rejects.toEqual(refused('MR_INVALID_IMPORT', /no worksheet/));
  });

  it("refuses past its rows, a row's bytes (as JSON), and what it unzips to (a zip bomb), 413", async () => {
    await expect(read(await xlsxOf([[['code'], ['a'], ['b'], ['c'], ['d']]]))).rejects.toEqual(refused('MR_IMPORT_TOO_LARGE', /importMaxRows/));
    await expect(read(await xlsxOf([[['code'], ['a'], ['x'.repeat(300)]]]))).rejects.toMatchObject({ code: 'MR_IMPORT_TOO_LARGE', details: [{ path: '2' }] });
    // 8 MB of one letter: a few kB zipped, past 32 × 64 kB unzipped.
    const bomb = await xlsxOf([[['code'], ['x'.repeat(8 * 1024 * 1024)]]]);
    expect(bomb.length).toBeLessThan(64 * 1024);
    await expect(read(bomb)).rejects.toEqual(refused('MR_IMPORT_TOO_LARGE', /once unzipped/));
  });

  /** The dates exceljs and its zip write are now's: a workbook written at a fixed time is the same bytes on every run, so a seed replays its cases. */
  async function fixedWorkbook(): Promise<Buffer> {
    jest.useFakeTimers({
      now: new Date('2026-01-01T00:00:00.000Z'),
      doNotFake: [
        'hrtime',
        'nextTick',
        'performance',
        'queueMicrotask',
        'setImmediate',
        'clearImmediate',
        'setInterval',
        'clearInterval',
        'setTimeout',
        'clearTimeout',
      ],
    });
    try {
      return await xlsxOf(
        [
          [
            ['code', 'qty', 'note'],
            ['A', 1, 'same'],
            ['B', 2, 'same'],
            ['C', true, 'other'],
          ],
        ],
        { sharedStrings: true },
      );
    } finally {
      jest.useRealTimers();
    }
  }

  it(
    'refuses, within importBodyTimeout of its last byte, a zip whose part does not end where its directory says (64 bytes of the sheet repeated: the ' +
      'unzipping waits forever; found by the fuzz below)',
    async () => {
      const file = await fixedWorkbook();
      const from = file.indexOf(Buffer.from('xl/worksheets/sheet1.xml')) + 'xl/worksheets/sheet1.xml'.length + 60;
      const repeated = Buffer.concat([file.subarray(0, from), file.subarray(from - 64)]);
      await expect(read(repeated)).rejects.toEqual(refused('MR_INVALID_IMPORT', /still unread 1000 ms after its last byte/));
    },
  );

  // Seeded (MODEL_ROUTES_FUZZ_SEED replays or explores): a reader of zips and XML must survive any bytes.
  const SEED = process.env.MODEL_ROUTES_FUZZ_SEED ? Number(process.env.MODEL_ROUTES_FUZZ_SEED) : 271127;

  it(
    `seeded mutations of a workbook (bytes flipped, cut, repeated; MODEL_ROUTES_FUZZ_SEED=${SEED}): each read or refused with a 4xx of the library, never ` +
      `another error, no file or descriptor left`,
    async () => {
      console.info(`xlsx fuzz: MODEL_ROUTES_FUZZ_SEED=${SEED} replays this run`);
      const random = seededRandom(SEED);
      const file = await fixedWorkbook();
      const at = () => Math.floor(random() * file.length);
      const mutations: Array<() => Buffer> = [
        () => {
          const bytes = Buffer.from(file);
          for (let flips = 1 + Math.floor(random() * 8); flips > 0; flips--) bytes[at()] = Math.floor(random() * 256);
          return bytes;
        },
        () => file.subarray(0, at()),
        () => {
          const from = at();
          return Buffer.concat([file.subarray(0, from), file.subarray(from - Math.min(from, 64))]);
        },
        () => Buffer.concat([file.subarray(at()), file.subarray(0, at())]),
      ];
      const outcomes = { read: 0, refused: 0 };
      for (let run = 0; run < 40; run++) {
        const bytes = mutations[run % mutations.length]();
        try {
          await read(bytes);
          outcomes.read++;
        } catch (error) {
          // A refusal of the client's file, in the library's words: a 4xx with a code.
          expect({ run, isLibrary: error instanceof ModelRoutesException, status: (error as { getStatus?: () => number }).getStatus?.() }).toEqual({
            run,
            isLibrary: true,
            status: expect.any(Number),
          });
          expect((error as ModelRoutesException).getStatus()).toBeLessThan(500);
          outcomes.refused++;
        }
        expect({ run, files: temporaryFiles(), descriptors: temporaryDescriptors() }).toEqual({ run, files: [], descriptors: [] });
      }
      console.info(`xlsx fuzz: ${JSON.stringify(outcomes)} (MODEL_ROUTES_FUZZ_SEED=${SEED})`);
      expect(outcomes.refused).toBeGreaterThan(0);
    },
  );
}
