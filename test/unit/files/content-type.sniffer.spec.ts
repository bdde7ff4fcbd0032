import { acceptedContentType, sniffContentType } from '../../../src/files/content-type.sniffer.js';
import { ModelRoutesException } from '../../../src/errors/model-routes.exception.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function contentTypeSnifferSpec(): void {
  const bytes = (...values: Array<number | string>) =>
    Buffer.concat(values.map((value) => (typeof value === 'number' ? Buffer.from([value]) : Buffer.from(value, 'latin1'))));

  describe('sniffContentType', () => {
    it.each([
      ['PNG', bytes(0x89, 'PNG\r\n\x1a\n', 'rest'), 'image/png'],
      ['JPEG', bytes(0xff, 0xd8, 0xff, 0xe0, 'JFIF'), 'image/jpeg'],
      ['GIF', bytes('GIF89a...'), 'image/gif'],
      ['WebP', bytes('RIFF\x00\x00\x00\x00WEBPVP8 '), 'image/webp'],
      ['AVIF', bytes('\x00\x00\x00\x1cftypavif'), 'image/avif'],
      ['PDF', bytes('%PDF-1.7'), 'application/pdf'],
      ['ZIP', bytes('PK\x03\x04'), 'application/zip'],
      ['MP4', bytes('\x00\x00\x00\x18ftypisom'), 'video/mp4'],
      ['an HTML page', bytes('<!DOCTYPE html><p>hi'), 'text/html'],
      ['HTML after text', bytes('hello <script>alert(1)</script>'), 'text/html'],
      ['an SVG image', bytes('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"/>'), 'image/svg+xml'],
      ['an SVG behind a BOM', bytes(0xef, 0xbb, 0xbf, '<svg>'), 'image/svg+xml'],
      ['XML', bytes('<?xml version="1.0"?><feed/>'), 'application/xml'],
    ])('%s', (_label, head, type) => {
      expect(sniffContentType(head).type).toBe(type);
    });

    it('tells text without markup from binary without a signature', () => {
      expect(sniffContentType(bytes('a,b\n1,2\n'))).toEqual({ text: true });
      expect(sniffContentType(bytes(0x00, 0x01, 0x02))).toEqual({ text: false });
    });
  });

  describe('acceptedContentType', () => {
    const png = bytes(0x89, 'PNG\r\n\x1a\n');
    const refused = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        return (error as ModelRoutesException).code;
      }
      return undefined;
    };

    it('is the sniffed type, whatever the client claims', () => {
      expect(acceptedContentType(png, 'image/jpeg', ['image/png', 'image/jpeg'], 'X.f')).toBe('image/png');
    });

    it('refuses a sniffed type the field does not accept, markup above all', () => {
      expect(refused(() => acceptedContentType(bytes('<svg onload=alert(1)>'), 'image/png', ['image/png'], 'X.f'))).toBe('MR_UNSUPPORTED_MEDIA_TYPE');
      expect(refused(() => acceptedContentType(bytes('<html>'), 'text/plain', ['text/plain'], 'X.f'))).toBe('MR_UNSUPPORTED_MEDIA_TYPE');
    });

    it('keeps the claimed type of content without a signature only when accepted and unsniffable', () => {
      expect(acceptedContentType(bytes('a,b\n'), 'text/csv; charset=utf-8', ['text/csv'], 'X.f')).toBe('text/csv');
      expect(refused(() => acceptedContentType(bytes('not a png'), 'image/png', ['image/png'], 'X.f'))).toBe('MR_UNSUPPORTED_MEDIA_TYPE');
      expect(refused(() => acceptedContentType(bytes(0x00, 0x01), 'text/csv', ['text/csv'], 'X.f'))).toBe('MR_UNSUPPORTED_MEDIA_TYPE');
      expect(acceptedContentType(bytes(0x00, 0x01), 'image/png', ['application/octet-stream'], 'X.f')).toBe('application/octet-stream');
    });
  });
}
