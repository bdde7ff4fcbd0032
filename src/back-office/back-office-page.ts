/** The headers of the page: nothing but this origin's scripts, styles and requests; no framing. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-cache',
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; connect-src 'self'; " +
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
};

/**
 * The back office's one HTML page: an empty body the app fills. `base` is where the back office is
 * served (`/api/admin`): its scripts and stylesheet are under `<base>/assets/`, and `main.js` finds
 * the metadata at `<base>/metadata` from its own URL. Every script but `main.js` is preloaded, so
 * the browser fetches the imports in parallel rather than one level at a time. How credentials are
 * sent is in two `<meta>` tags: the app needs it before the metadata, whose route may be guarded.
 * An empty icon keeps the browser from asking for `/favicon.ico`, which no route serves.
 */
export function backOfficePage(base: string, title: string, scripts: readonly string[], auth: { header: string; scheme?: string }): string {
  const asset = (name: string) => escapeHtml(`${base}/assets/${name}`);
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title>`,
    '<link rel="icon" href="data:,">',
    `<meta name="model-routes-auth-header" content="${escapeHtml(auth.header)}">`,
    ...(auth.scheme ? [`<meta name="model-routes-auth-scheme" content="${escapeHtml(auth.scheme)}">`] : []),
    `<link rel="stylesheet" href="${asset('app.css')}">`,
    ...scripts.filter((name) => name !== 'main.js').map((name) => `<link rel="modulepreload" href="${asset(name)}">`),
    `<script type="module" src="${asset('main.js')}"></script>`,
    '</head>',
    '<body>',
    '<noscript>The back office is a JavaScript application: enable JavaScript to use it.</noscript>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
