import { fileError } from './file-errors.js';

/** How many of a file's first bytes are read to tell its type. */
export const SNIFF_LENGTH = 1024;

const SIGNATURES: ReadonlyArray<{ type: string; test: (bytes: Buffer) => boolean }> = [
  { type: 'image/png', test: (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) },
  { type: 'image/jpeg', test: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff },
  { type: 'image/gif', test: (b) => /^GIF8[79]a/.test(b.toString('latin1', 0, 6)) },
  { type: 'image/webp', test: (b) => b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP' },
  { type: 'image/avif', test: (b) => b.toString('latin1', 4, 8) === 'ftyp' && /^avi[fs]$/.test(b.toString('latin1', 8, 12)) },
  { type: 'application/pdf', test: (b) => b.toString('latin1', 0, 5) === '%PDF-' },
  { type: 'application/zip', test: (b) => b.toString('latin1', 0, 4) === 'PK\x03\x04' },
  { type: 'video/mp4', test: (b) => b.toString('latin1', 4, 8) === 'ftyp' && /^(isom|iso2|mp41|mp42|avc1|M4V )$/.test(b.toString('latin1', 8, 12)) },
];

/** Every type the sniffer can tell from content: a client claiming one of them must send it. */
const SNIFFED_TYPES = new Set([...SIGNATURES.map(({ type }) => type), 'image/svg+xml', 'text/html', 'application/xml', 'text/xml']);

/** Markup a browser would run scripts in, wherever it appears in the first bytes of a text. */
const SVG = /<svg[\s>/]/i;
const HTML = /<(?:!doctype\s+html|html|head|body|script|iframe|object|embed|meta|link|style|img|a\s|div|table|title)[\s>/]/i;

/**
 * The media type of a file, read from its first bytes (`SNIFF_LENGTH`): the signature of an image,
 * PDF, ZIP or MP4, or markup (SVG, HTML, XML) anywhere in a text; `undefined` when it is none of
 * these, with whether it looks like text (no control bytes).
 */
export function sniffContentType(head: Buffer): { type?: string; text: boolean } {
  const signature = SIGNATURES.find(({ test }) => test(head));
  if (signature) return { type: signature.type, text: false };
  const text = !head.some((byte) => byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d && byte !== 0x0c && byte !== 0x1b);
  if (!text) return { text };
  // UTF-16 and UTF-8 texts alike: NUL bytes were refused above, so decode as Latin-1 and look for ASCII markup.
  const sample = head.toString('latin1');
  if (SVG.test(sample)) return { type: 'image/svg+xml', text };
  if (HTML.test(sample)) return { type: 'text/html', text };
  if (/^\s*(?:\xef\xbb\xbf)?\s*<\?xml/i.test(sample)) return { type: 'application/xml', text };
  return { text };
}

/**
 * The type a file is stored and served as: the one its content shows, which the field must accept;
 * for content the sniffer cannot tell (a CSV), the client's `Content-Type` when the field accepts it
 * and it is no type the sniffer knows (a "PNG" without PNG bytes is refused), else
 * `application/octet-stream` when accepted. Anything else is a 415 `MR_UNSUPPORTED_MEDIA_TYPE`.
 */
export function acceptedContentType(head: Buffer, declared: string | undefined, accept: readonly string[], where: string): string {
  const sniffed = sniffContentType(head);
  const claimed = declared?.split(';')[0].trim().toLowerCase();
  if (sniffed.type) {
    if (accept.includes(sniffed.type)) return sniffed.type;
    throw fileError(
      'MR_UNSUPPORTED_MEDIA_TYPE',
      where,
      `the file is ${sniffed.type} (read from its content${claimed ? `, sent as ${claimed}` : ''}); accepted: ${accept.join(', ')}`,
    );
  }
  if (claimed && accept.includes(claimed) && !SNIFFED_TYPES.has(claimed) && (sniffed.text || !claimed.startsWith('text/'))) return claimed;
  if (accept.includes('application/octet-stream')) return 'application/octet-stream';
  throw fileError('MR_UNSUPPORTED_MEDIA_TYPE', where, `the file's content is not ${claimed ?? 'of a known type'}; accepted: ${accept.join(', ')}`);
}
