import type { AppContext } from './context.js';
import { h, uid } from './dom.js';
import { EXPORT_FORMATS, exportRequest, type ExportFormat, type ReverseList } from './list-export.js';
import type { ResourceMetadata } from './metadata.js';
import type { SearchSpec } from './search-query.js';
import { pluralName } from './text.js';

/**
 * "Export": every document of the list's search (its filter and sort, not its page) in the format
 * chosen (see list-export.ts), fetched through the app's API, so that guarded routes get the
 * credential, and saved from an object URL. A refusal (a 400 past `exportMaxRows`, a 401...) shows in
 * the page's alerts, as a list that cannot load does. None when neither export route is enabled.
 * A reverse list exports its own search through its relation's reverse export routes.
 */
export function exportForm(context: AppContext, resource: ResourceMetadata, spec: SearchSpec, alerts: HTMLElement, reverse?: ReverseList): HTMLElement | false {
  if (!exportRequest(resource, spec, 'csv', reverse)) return false;
  const id = uid('export');
  const plural = pluralName(resource).toLowerCase();
  const select = h(
    'select',
    { id },
    Object.entries(EXPORT_FORMATS).map(([value, { label }]) => h('option', { value }, label)),
  );
  const button = h('button', { type: 'submit', class: 'button secondary' }, 'Export');
  let running = false;
  let failed: HTMLElement | undefined;
  const run = async (event: Event) => {
    event.preventDefault();
    if (running) return;
    const format = select.value as ExportFormat;
    const request = exportRequest(resource, spec, format, reverse)!;
    // Busy, not disabled: a disabled button would lose the keyboard's focus.
    running = true;
    failed?.remove();
    button.setAttribute('aria-disabled', 'true');
    form.setAttribute('aria-busy', 'true');
    try {
      const answer = await context.api.bytes(request.action, request.at, { query: request.query, body: request.body });
      // The format's type, never the answer's: the object URL is of the app's origin.
      const link = h('a', { href: URL.createObjectURL(new Blob([answer], { type: request.mediaType })), download: request.filename });
      link.click();
      window.setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
      // Saved even if the user went on meanwhile; said only on its own page.
      if (form.isConnected) context.announce(`Exported ${plural} as ${EXPORT_FORMATS[format].label}: ${request.filename}.`, { page: true });
    } catch (error) {
      if (!form.isConnected) return;
      failed = context.alert(error, `export ${plural}`);
      alerts.append(failed);
    } finally {
      running = false;
      button.removeAttribute('aria-disabled');
      form.removeAttribute('aria-busy');
    }
  };
  const form = h(
    'form',
    { class: 'list-export', onsubmit: (event) => void run(event), 'aria-label': `Export ${plural}` },
    h('div', { class: 'field' }, h('label', { for: id }, 'Export format'), select),
    button,
  );
  return form;
}
