import fc from 'fast-check';
import { contentDisposition, fileNameOf, sanitizeFileName } from '../../../src/files/file-name.util.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function fileNameUtilSpec(): void {
  /** The seed of the properties below: fixed, so that every run checks the same names. */
  const SEED = 1414;

  describe('sanitizeFileName', () => {
    it.each([
      ['../../etc/passwd', 'passwd'],
      ['C:\\Users\\ada\\photo.jpg', 'photo.jpg'],
      ['a\u0000b\u001fc.png', 'abc.png'],
      ['evil\u202egnp.exe', 'evilgnp.exe'],
      ['"quoted".png', 'quoted.png'],
      ['  .hidden.  ', 'hidden'],
      ['../', 'file'],
      ['', 'file'],
      ['café.png', 'café.png'],
    ])('%p → %p', (name, expected) => {
      expect(sanitizeFileName(name)).toBe(expected);
    });

    it('keeps at most 255 bytes, and the extension', () => {
      const name = `${'é'.repeat(300)}.jpeg`;
      const clean = sanitizeFileName(name);
      expect(Buffer.byteLength(clean)).toBeLessThanOrEqual(255);
      expect(clean.endsWith('.jpeg')).toBe(true);
    });

    it(`gives a safe name for any input (fast-check seed ${SEED})`, () => {
      fc.assert(
        fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (name) => {
          const clean = sanitizeFileName(name);
          expect(clean.length).toBeGreaterThan(0);
          expect(Buffer.byteLength(clean)).toBeLessThanOrEqual(255);
          // eslint-disable-next-line no-control-regex -- control characters are what it must not hold
          expect(clean).not.toMatch(/[/\\"\u0000-\u001f\u007f\u202a-\u202e]/);
          expect(clean).not.toMatch(/^[\s.]|[\s.]$/);
          // The header built from it is one line of printable ASCII.
          expect(contentDisposition('attachment', clean)).toMatch(/^[\x20-\x7e]+$/);
        }),
        { seed: SEED, numRuns: 2000 },
      );
    });
  });

  describe('fileNameOf (Content-Disposition of an upload)', () => {
    it.each([
      ['attachment; filename="acme.png"', 'acme.png'],
      ['attachment; filename=acme.png', 'acme.png'],
      [`attachment; filename="fallback.png"; filename*=UTF-8''caf%C3%A9.png`, 'café.png'],
      ['attachment; filename="a \\"b\\".png"', 'a "b".png'],
      ['inline', undefined],
      [undefined, undefined],
    ])('%p → %p', (header, expected) => {
      expect(fileNameOf(header)).toBe(expected);
    });
  });

  describe('contentDisposition (of a download)', () => {
    it('gives an ASCII filename and the exact UTF-8 filename*', () => {
      expect(contentDisposition('inline', 'café "menu".pdf')).toBe(`inline; filename="caf_ _menu_.pdf"; filename*=UTF-8''caf%C3%A9%20%22menu%22.pdf`);
    });
  });
}
