/** The longest file name kept, in UTF-8 bytes (what most file systems take). */
const MAX_NAME_BYTES = 255;

/**
 * A file name that is safe to store and to send back: its last path segment (no `/`, `\`), without
 * control characters, bidirectional overrides or quotes, trimmed of dots and spaces at its ends,
 * at most 255 bytes (the extension kept); `file` when nothing is left.
 */
export function sanitizeFileName(name: string): string {
  const base = name.normalize('NFC').split(/[/\\]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex -- control characters are what it removes
  const clean = base.replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069"<>|:*?]/g, '').replace(/^[\s.]+|[\s.]+$/g, '');
  if (!clean) return 'file';
  if (Buffer.byteLength(clean) <= MAX_NAME_BYTES) return clean;
  const dot = clean.lastIndexOf('.');
  const extension = dot > 0 && clean.length - dot <= 16 ? clean.slice(dot) : '';
  let stem = clean.slice(0, clean.length - extension.length);
  while (Buffer.byteLength(stem + extension) > MAX_NAME_BYTES) stem = [...stem].slice(0, -1).join('');
  return stem + extension;
}

/** The file name of a `Content-Disposition` header (`filename*=UTF-8''...` first, then `filename="..."`). */
export function fileNameOf(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  const extended = /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(value);
  if (extended) {
    try {
      return decodeURIComponent(extended[1].trim());
    } catch {
      // fall back to the plain parameter
    }
  }
  const plain = /filename\s*=\s*(?:"((?:\\.|[^"\\])*)"|([^;\s]+))/i.exec(value);
  return plain ? (plain[1] ?? plain[2]).replace(/\\(.)/g, '$1') : undefined;
}

/**
 * A `Content-Disposition` header for a download: `inline` or `attachment`, the name as ASCII in
 * `filename` (other characters as `_`) and in full in `filename*` (RFC 6266, RFC 8187).
 */
export function contentDisposition(kind: 'inline' | 'attachment', name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
