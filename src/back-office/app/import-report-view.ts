import { h } from './dom.js';
import { reportCounts, reportSummary, type ImportReport } from './import-request.js';

/**
 * An import's report on the page: its counts, the columns it ignored, and every refused row (its
 * number, code, message, and each detail's path and message). Everything the server said is text
 * nodes, never HTML: a cell of the file (`<img onerror=...>`) quoted in a message stays text.
 */
export function importReportView(report: ImportReport, heading: string, ...actions: Array<HTMLElement | false>): HTMLElement {
  const title = h('h2', { tabindex: '-1', class: 'import-report-title' }, heading);
  return h(
    'section',
    { class: 'import-report', 'aria-label': heading },
    title,
    h('p', {}, reportSummary(report)),
    h(
      'dl',
      { class: 'import-counts' },
      reportCounts(report).map(([label, count]) => h('div', {}, h('dt', {}, label), h('dd', {}, count))),
    ),
    report.ignored.length > 0 && h('p', { class: 'hint' }, `Ignored columns (an export writes them; no write may set them): ${report.ignored.join(', ')}.`),
    report.errors.length ? refusedRows(report) : h('p', {}, 'No row was refused.'),
    actions.some(Boolean) && h('div', { class: 'form-actions' }, actions),
  );
}

function refusedRows(report: ImportReport): HTMLElement {
  const caption = report.dryRun ? 'Rows the import would refuse' : 'Refused rows';
  return h(
    'div',
    { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': caption },
    h(
      'table',
      {},
      h('caption', { class: 'visually-hidden' }, caption),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Row', 'Code', 'Message', 'Details'].map((name) => h('th', { scope: 'col', class: name === 'Row' ? 'number' : undefined }, name)),
        ),
      ),
      h(
        'tbody',
        {},
        report.errors.map((error) =>
          h(
            'tr',
            {},
            h('th', { scope: 'row', class: 'number' }, error.row),
            h('td', {}, h('code', {}, error.code)),
            h('td', {}, error.message),
            h(
              'td',
              {},
              error.details?.length
                ? h(
                    'ul',
                    { class: 'import-details' },
                    error.details.map((detail) => h('li', {}, detail.path ? [h('code', {}, detail.path), `: ${detail.message}`] : detail.message)),
                  )
                : '',
            ),
          ),
        ),
      ),
    ),
  );
}
