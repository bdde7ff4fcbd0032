import { ApiError, type UploadProgress } from './api.js';
import type { AppContext } from './context.js';
import { h, replace, uid } from './dom.js';
import { importReportView } from './import-report-view.js';
import {
  IMPORT_FORMATS,
  importFormatOf,
  importRequest,
  reportSummary,
  writesOf,
  type ImportFormat,
  type ImportMode,
  type ImportReport,
} from './import-request.js';
import type { ResourceMetadata } from './metadata.js';
import { formatSize, pluralName } from './text.js';

/** The file, format and mode of one check, which its "Import" sends again. */
interface Chosen {
  file: File;
  format: ImportFormat;
  mode: ImportMode;
}

const MODES: Record<ImportMode, string> = {
  create: 'Create: every row makes a new document',
  upsert: 'Upsert: a row that gives the id updates its document, the others are created',
};

/**
 * A resource's import page (`#/company/import`, where the resource enables `import`): a file (CSV,
 * NDJSON or a JSON array), its format and a mode; "Check" sends it with `dryRun=true` and shows the
 * report row by row, then "Import" sends the same file and mode for real. A progress bar while a
 * run lasts: the upload's bytes, then an indeterminate state while the server works (it does not
 * report its own progress). Choosing another file, format or mode asks for a new check.
 */
export function renderImport(context: AppContext, main: HTMLElement, resource: ResourceMetadata): void {
  const plural = pluralName(resource).toLowerCase();
  const [fileId, formatId, modeId, hintId, errorId] = [uid('import-file'), uid('import-format'), uid('import-mode'), uid('import-hint'), uid('import-error')];
  const alerts = h('div', { class: 'alerts' });
  const file = h('input', {
    id: fileId,
    type: 'file',
    accept: '.csv,.ndjson,.jsonl,.json,.xlsx,text/csv,application/x-ndjson,application/json,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    'aria-describedby': `${hintId} ${errorId}`,
  });
  const fileError = h('p', { id: errorId, class: 'field-error', hidden: true });
  const format = h(
    'select',
    { id: formatId },
    Object.entries(IMPORT_FORMATS).map(([value, { label }]) => h('option', { value }, label)),
  );
  const mode = h(
    'select',
    { id: modeId },
    Object.entries(MODES).map(([value, label]) => h('option', { value }, label)),
  );
  const check = h('button', { type: 'submit', class: 'button primary' }, 'Check');
  const progress = progressBar();
  const result = h('div', { class: 'import-result' });
  let checked: Chosen | undefined;
  let running = false;

  // Another file, format or mode: the check shown was of something else.
  const reset = () => {
    checked = undefined;
    replace(result);
    replace(alerts);
  };
  file.addEventListener('change', () => {
    const named = file.files?.[0] && importFormatOf(file.files[0].name);
    if (named) format.value = named;
    fileError.hidden = true;
    file.removeAttribute('aria-invalid');
    reset();
  });
  format.addEventListener('change', reset);
  mode.addEventListener('change', reset);

  const run = async (chosen: Chosen, dryRun: boolean, button: HTMLElement): Promise<void> => {
    if (running) return;
    running = true;
    // Busy, not disabled: a disabled button would lose the keyboard's focus.
    button.setAttribute('aria-disabled', 'true');
    form.setAttribute('aria-busy', 'true');
    replace(alerts);
    progress.start(dryRun ? 'Checking' : 'Importing');
    try {
      const { query, contentType } = importRequest({ format: chosen.format, mode: chosen.mode, dryRun });
      const report = await context.api.upload<ImportReport>('import', { resource }, { query, body: chosen.file, contentType, onProgress: progress.update });
      if (!main.isConnected) return;
      checked = dryRun ? chosen : undefined;
      const importButton =
        dryRun &&
        writesOf(report) > 0 &&
        h(
          'button',
          { type: 'button', class: 'button primary', onclick: (event: Event) => checked && void run(checked, false, event.currentTarget as HTMLElement) },
          'Import',
        );
      const listLink = !dryRun && h('a', { class: 'button secondary', href: `#/${resource.path}` }, `See the ${plural}`);
      const heading = `${dryRun ? 'Check' : 'Import'} of ${chosen.file.name}`;
      replace(result, importReportView(report, heading, importButton, listLink));
      context.announce(reportSummary(report), { page: dryRun });
      result.querySelector<HTMLElement>('h2')?.focus();
    } catch (error) {
      if (!main.isConnected) return;
      replace(alerts, failure(context, error, dryRun ? `check the file` : `import ${plural}`));
      (alerts.querySelector('[role=alert]') as HTMLElement | null)?.focus();
    } finally {
      running = false;
      progress.stop();
      button.removeAttribute('aria-disabled');
      form.removeAttribute('aria-busy');
    }
  };

  const submit = (event: Event) => {
    event.preventDefault();
    const chosen = file.files?.[0];
    if (!chosen) {
      replace(fileError, 'Choose a file to check.');
      fileError.hidden = false;
      file.setAttribute('aria-invalid', 'true');
      file.focus();
      return;
    }
    void run({ file: chosen, format: format.value as ImportFormat, mode: mode.value as ImportMode }, true, check);
  };

  const heading = h('h1', { tabindex: '-1', id: 'page-heading' }, `Import ${plural}`);
  const form = h(
    'form',
    { class: 'import-form', novalidate: true, 'aria-labelledby': 'page-heading', onsubmit: submit },
    h(
      'div',
      { class: 'field' },
      h('label', { for: fileId }, 'File'),
      file,
      h(
        'p',
        { id: hintId, class: 'hint' },
        'CSV with a header row naming the fields (as an export writes it), NDJSON (one document per line), a JSON array or an XLSX workbook (its first ' +
          'sheet, a header row). "Check" reads every row and writes nothing; then "Import" writes the rows it accepts.',
      ),
      fileError,
    ),
    h('div', { class: 'field' }, h('label', { for: formatId }, 'Format'), format),
    h('div', { class: 'field' }, h('label', { for: modeId }, 'Mode'), mode),
    h('div', { class: 'form-actions' }, check),
  );
  replace(
    main,
    h('nav', { class: 'breadcrumb', 'aria-label': 'Breadcrumb' }, h('a', { href: `#/${resource.path}` }, pluralName(resource))),
    heading,
    alerts,
    form,
    progress.element,
    result,
  );
}

/** A refusal of the whole file, with the rows its details name (`MR_INVALID_IMPORT`: the row that could not be read). */
function failure(context: AppContext, error: unknown, doing: string): HTMLElement {
  const alert = context.alert(error, doing);
  alert.setAttribute('tabindex', '-1');
  const details = error instanceof ApiError ? error.details : [];
  if (details.length)
    alert.append(
      h(
        'ul',
        {},
        details.map((detail) => h('li', {}, detail.path ? `Row ${detail.path}: ${detail.message}` : detail.message)),
      ),
    );
  return alert;
}

/**
 * The progress of a run: a bar of the bytes sent where the browser reports them, else (and once
 * the file is sent) an indeterminate bar, with words that say which.
 */
function progressBar(): { element: HTMLElement; start(doing: string): void; update(progress: UploadProgress): void; stop(): void } {
  const id = uid('import-progress');
  const bar = h('progress', { id, max: 1 });
  const label = h('label', { for: id }, 'Progress');
  const text = h('p', { class: 'hint', 'aria-live': 'polite' });
  const element = h('div', { class: 'import-progress', hidden: true }, label, bar, text);
  let doing = '';
  return {
    element,
    start(what) {
      doing = what;
      replace(label, `${what}: progress`);
      bar.removeAttribute('value');
      replace(text, 'Sending the file…');
      element.hidden = false;
    },
    update(progress) {
      if (progress.phase === 'sending' && progress.total) {
        bar.max = progress.total;
        bar.value = progress.loaded;
        replace(text, `Sending the file: ${formatSize(progress.loaded)} of ${formatSize(progress.total)}.`);
      } else if (progress.phase === 'waiting') {
        bar.removeAttribute('value');
        replace(text, `File sent. ${doing}: the server is reading the rows (it does not report its progress)…`);
      }
    },
    stop() {
      element.hidden = true;
      bar.removeAttribute('value');
      replace(text);
    },
  };
}
