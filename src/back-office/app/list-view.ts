import { ApiError, type Envelope } from './api.js';
import type { AppContext } from './context.js';
import { append, h, replace, uid } from './dom.js';
import { filterOf, filterParams, listColumns, listFilters, type ListFilter } from './field-rules.js';
import { documentLink } from './fields.js';
import type { FieldMetadata, ResourceMetadata } from './metadata.js';
import type { Doc } from './api-wire.js';
import { listParams, pageHash, pagerLinks, PageTrail, positionOf, type ListPosition } from './list-paging.js';
import { createPicker } from './picker.js';
import { exportForm } from './list-export-form.js';
import type { SearchSpec } from './search-query.js';
import { expandPaths, referenceId } from './expanded.js';
import { referencedDocuments, resourceSearch, reverseSearch, searchExpanding, type Searcher } from './search.js';
import { documentLabel, fieldLabel, formatValue, humanize, pluralName, singularName, valueAt } from './text.js';

/** The documents of a list page (and of a trash page). */
export const PAGE_SIZE = 20;

/** The documents of `source` whose `field` references one document of `target`: a reverse route's list. */
export interface Reverse {
  target: ResourceMetadata;
  id: string;
  field: string;
}

/** The pages this tab walked with cursors: "Previous page" of a cursor page. */
const trail = new PageTrail(sessionStorageOrNone());

/**
 * A resource's list (`#/company?sort=-employees&niceName=acme&after=<cursor>&from=21`): typed
 * filters, a table sorted by clicking a column header, and paging from the envelope (with cursors
 * when sorted: see list-paging.ts). With `reverse`, the documents that reference one document,
 * through the reverse route.
 */
export async function renderList(
  context: AppContext,
  main: HTMLElement,
  resource: ResourceMetadata,
  params: URLSearchParams,
  reverse?: Reverse,
): Promise<void> {
  const search: Searcher | undefined = reverse
    ? reverseSearch(context, resource, reverse.field, reverse.target, reverse.id)
    : resourceSearch(context, resource);
  const heading = h('h1', { tabindex: '-1', id: 'page-heading' }, pluralName(resource));
  const alerts = h('div', { class: 'alerts' });
  const here = reverse ? `#/${reverse.target.path}/${encodeURIComponent(reverse.id)}/${resource.plural}/${reverse.field}` : `#/${resource.path}`;
  const columns = listColumns(resource);
  const filters = listFilters(resource, columns, (name) => context.resourceNamed(name));
  replace(
    main,
    h(
      'div',
      { class: 'page-header' },
      heading,
      !reverse &&
        resource.routes.includes('create') &&
        h('a', { class: 'button primary', href: `#/${resource.path}/new` }, `New ${singularName(resource).toLowerCase()}`),
    ),
    alerts,
  );
  if (reverse) void describeReverse(context, heading, resource, reverse);
  if (!search) {
    replace(alerts, h('p', {}, `${pluralName(resource)} cannot be listed here: their search routes are disabled.`));
    return;
  }
  // The names of the documents the reference filters hold: from the page's answer when it has them.
  let pageReferenced!: (referenced: Map<string, Doc>) => void;
  const loaded = new Promise<Map<string, Doc>>((resolve) => (pageReferenced = resolve));
  const sort = params.get('sort') ?? '';
  const list = listParams(params);
  const searched: SearchSpec = {
    filter: filterOf(
      filters.map(({ field }) => field),
      params,
    ),
    sort: sort || undefined,
  };
  // A reverse list exports through its relation's reverse export routes; only the resource's own list imports.
  const relation = reverse && reverse.target.referencedBy.find((entry) => entry.resource === resource.name && entry.field === reverse.field);
  const exporting = exportForm(context, resource, searched, alerts, reverse && { ...reverse, routes: relation?.routes ?? [] });
  const importing =
    !reverse &&
    resource.routes.includes('import') &&
    h('a', { class: 'button secondary', href: `#/${resource.path}/import` }, `Import ${pluralName(resource).toLowerCase()}`);
  // Soft delete: what a delete took away is in the trash, where the route that searches it is served.
  const trash = !reverse && resource.routes.includes('trash') && h('a', { class: 'button secondary', href: `#/${resource.path}/trash` }, 'Trash');
  append(main, [
    filterForm(context, resource, filters, params, here, loaded),
    (exporting || importing || trash) && h('div', { class: 'list-tools' }, exporting, importing, trash),
  ]);
  await context.pages.run(
    async () => {
      // One request where the shown references are expandable; one search per other target resource.
      const spec = { ...searched, limit: PAGE_SIZE, expand: expandPaths(columns, resource.maxExpandPaths) };
      const page = (position: ListPosition) => searchExpanding(search, { ...spec, skip: position.skip, after: position.after });
      let position = positionOf(params);
      let restarted = false;
      let answer: Awaited<ReturnType<typeof page>>;
      try {
        answer = await page(position);
      } catch (error) {
        // A cursor of another sort or filter (an old link): the first page, never an error page.
        if (!(position.after && error instanceof ApiError && error.code === 'MR_INVALID_CURSOR')) throw error;
        [position, restarted] = [positionOf(list), true];
        answer = await page(position);
      }
      const { envelope, expanded } = answer;
      return { envelope, expanded, position, restarted, referenced: await referencedDocuments(context, columns, envelope.result) };
    },
    {
      done: ({ envelope, expanded, position, restarted, referenced }) => {
        pageReferenced(referenced);
        if (restarted) {
          history.replaceState(history.state, '', pageHash(here, list, position));
          replace(
            alerts,
            h(
              'p',
              { class: 'notice' },
              'That page could not be found again (its link belongs to another sort or filter, or the list changed): here is the first page.',
            ),
          );
        }
        main.append(table(context, resource, columns, envelope, { referenced, expanded }, params, here), pager(envelope, list, position, here));
      },
      failed: (error) => {
        pageReferenced(new Map());
        replace(alerts, context.loadFailed(error, `list ${resource.plural}`));
      },
    },
  );
}

/** `Companies whose owner is Ada Lovelace`; through an array of references, `Projects whose members include Ada Lovelace` (as the document's link says). */
async function describeReverse(context: AppContext, heading: HTMLElement, resource: ResourceMetadata, reverse: Reverse): Promise<void> {
  const field = humanize(reverse.field).toLowerCase();
  const relation = reverse.target.referencedBy.find((entry) => entry.resource === resource.name && entry.field === reverse.field);
  const verb = relation?.isArray ? 'include' : 'is';
  replace(heading, `${pluralName(resource)} whose ${field} ${verb} ${singularName(reverse.target).toLowerCase()} ${reverse.id}`);
  if (!reverse.target.routes.includes('findOne')) return;
  try {
    const { body } = await context.api.one(reverse.target, reverse.id);
    replace(heading, `${pluralName(resource)} whose ${field} ${verb} `, documentLink({ context }, reverse.target.name, body));
    window.document.title = `${heading.textContent} · ${context.metadata.title}`;
  } catch {
    // The identifier stays in the heading.
  }
}

function filterForm(
  context: AppContext,
  resource: ResourceMetadata,
  filters: ListFilter[],
  params: URLSearchParams,
  here: string,
  loaded: Promise<Map<string, Doc>>,
): HTMLElement {
  const values = new Map<string, string>();
  const inputs = filters.map((filter) => filterInput(context, filter, params, values, loaded));
  const apply = (event: Event) => {
    event.preventDefault();
    const next = new URLSearchParams();
    const sort = params.get('sort');
    if (sort) next.set('sort', sort);
    for (const [name, value] of values) if (value) next.set(name, value);
    location.hash = `${here}?${next}`;
  };
  const active = filters.some(({ field }) => filterParams(field).some((name) => params.has(name)));
  return h(
    'details',
    { class: 'filters', open: active || window.innerWidth > 700 },
    h('summary', {}, 'Filters'),
    h(
      'form',
      { onsubmit: apply, 'aria-label': `Filter ${pluralName(resource).toLowerCase()}` },
      h('div', { class: 'filter-grid' }, inputs),
      h(
        'div',
        { class: 'form-actions' },
        h('button', { type: 'submit', class: 'button primary' }, 'Apply filters'),
        active &&
          h('a', { class: 'button secondary', href: params.get('sort') ? `${here}?sort=${encodeURIComponent(params.get('sort')!)}` : here }, 'Clear filters'),
      ),
    ),
  );
}

/** One filter, typed by its field: a fragment for text, a range for numbers and dates, a select for enums and booleans, a picker for references. */
function filterInput(
  context: AppContext,
  { field, label }: ListFilter,
  params: URLSearchParams,
  values: Map<string, string>,
  loaded: Promise<Map<string, Doc>>,
): HTMLElement {
  const bind = (name: string, control: HTMLInputElement | HTMLSelectElement) => {
    control.value = params.get(name) ?? '';
    values.set(name, control.value);
    control.addEventListener('input', () => values.set(name, control.value));
    control.addEventListener('change', () => values.set(name, control.value));
    return control;
  };
  const labelled = (text: string, control: HTMLElement, id: string) => h('div', { class: 'field' }, h('label', { for: id }, text), control);
  if (field.type === 'number' || field.type === 'date') {
    const type = field.type === 'number' ? 'number' : 'date';
    const [min, max] = [uid('filter'), uid('filter')];
    return h(
      'fieldset',
      { class: 'range' },
      h('legend', {}, label),
      labelled('From', bind(`${field.path}.min`, h('input', { id: min, type, step: type === 'number' ? 'any' : undefined })), min),
      labelled('To', bind(`${field.path}.max`, h('input', { id: max, type, step: type === 'number' ? 'any' : undefined })), max),
    );
  }
  const id = uid('filter');
  if (field.enum || field.type === 'boolean') {
    const options = field.enum ?? ['true', 'false'];
    const select = h(
      'select',
      { id },
      h('option', { value: '' }, 'Any'),
      options.map((value) => h('option', { value }, field.type === 'boolean' ? (value === 'true' ? 'Yes' : 'No') : value)),
    );
    return labelled(label, bind(field.path, select), id);
  }
  const target = field.type === 'reference' ? context.resourceNamed(field.target!) : undefined;
  if (target) {
    const chosen = params.get(field.path) ?? '';
    values.set(field.path, chosen);
    const picker = createPicker(context, target, {
      id,
      initial: chosen,
      onPick: (document) => values.set(field.path, String(document._id)),
      onClear: () => values.set(field.path, ''),
    });
    // The page's parameters hold an identifier: the input shows the document's name once it is found.
    if (chosen) void showPicked(context, field, target, chosen, picker.querySelector('input')!, loaded);
    return labelled(label, picker, id);
  }
  return labelled(field.type === 'string' ? `${label} contains` : label, bind(field.path, h('input', { id, type: 'search' })), id);
}

/**
 * Puts the name of the document `id` of the reference `field` in a filter's picker, unless the user
 * typed meanwhile: the page's answer has it when a row references it (all do, unless none matched),
 * else one search.
 */
async function showPicked(
  context: AppContext,
  field: FieldMetadata,
  target: ResourceMetadata,
  id: string,
  input: HTMLInputElement,
  loaded: Promise<Map<string, Doc>>,
): Promise<void> {
  const document = (await loaded).get(id) ?? (await referencedDocuments(context, [field], [{ [field.path]: id }])).get(id);
  if (document && input.value === id) input.value = documentLabel(target, document);
}

/** The documents the page's references name, by identifier, and the reference fields that came expanded. */
export interface Referenced {
  referenced: Map<string, Doc>;
  expanded: string[];
}

function table(
  context: AppContext,
  resource: ResourceMetadata,
  columns: FieldMetadata[],
  envelope: Envelope,
  { referenced, expanded }: Referenced,
  params: URLSearchParams,
  here: string,
): HTMLElement {
  const sort = params.get('sort') ?? '';
  const header = columns.map((field) => {
    const direction = sort === field.path ? 'ascending' : sort === `-${field.path}` ? 'descending' : 'none';
    const next = direction === 'ascending' ? `-${field.path}` : field.path;
    // A cursor belongs to its sort: another sort starts at its first page.
    const query = listParams(params);
    query.set('sort', next);
    return h(
      'th',
      { scope: 'col', 'aria-sort': direction, class: field.type === 'number' ? 'number' : undefined },
      h(
        'button',
        { type: 'button', class: 'sort', onclick: () => (location.hash = `${here}?${query}`) },
        fieldLabel(field),
        h('span', { class: 'sort-mark', 'aria-hidden': 'true' }, direction === 'ascending' ? ' ▲' : direction === 'descending' ? ' ▼' : ''),
      ),
    );
  });
  const rows = envelope.result.map((document) =>
    h('tr', {}, documentCells(context, resource, columns, document, { referenced, expanded }, resource.routes.includes('findOne'))),
  );
  const order = sort?.startsWith('-') ? 'descending' : 'ascending';
  const caption = `${pluralName(resource)}${sort ? `, sorted by ${humanize(sort.replace(/^-/, '')).toLowerCase()} ${order}` : ''}`;
  return h(
    'div',
    { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': caption },
    h(
      'table',
      {},
      h('caption', { class: 'visually-hidden' }, caption),
      h('thead', {}, h('tr', {}, header)),
      h('tbody', {}, rows.length ? rows : h('tr', {}, h('td', { colspan: columns.length, class: 'muted' }, `No ${pluralName(resource).toLowerCase()} match.`))),
    ),
  );
}

/**
 * The cells of a document's row: its first column as the row's header, a link to its page when
 * `linked`; references by the name of the document they point to, linked, when it is known. Every
 * value as text.
 */
export function documentCells(
  context: AppContext,
  resource: ResourceMetadata,
  columns: FieldMetadata[],
  document: Doc,
  { referenced, expanded }: Referenced,
  linked: boolean,
): HTMLElement[] {
  return columns.map((field, index) => {
    const value = valueAt(document, field.path);
    if (index === 0) {
      const text = formatValue(field, value) || String(valueAt(document, resource.idField));
      return h('th', { scope: 'row' }, linked ? documentLink({ context }, resource.name, document, text) : text);
    }
    if (field.type === 'reference' && value) {
      const id = referenceId(value) ?? '';
      const target = referenced.get(id);
      return h('td', {}, target ? documentLink({ context }, field.target!, target) : id);
    }
    // Expanded, a reference whose document is gone (or not readable) is `null`: no identifier left to show.
    if (field.type === 'reference' && value === null && expanded.includes(field.path)) return h('td', { class: 'muted' }, 'Missing');
    return h('td', { class: field.type === 'number' ? 'number' : undefined }, formatValue(field, value));
  });
}

/** `21–40 of 57 matching (120 in total)`, with the previous and next pages (see list-paging.ts). */
export function pager(envelope: Envelope, list: URLSearchParams, position: ListPosition, here: string): HTMLElement {
  const hash = pageHash(here, list, position);
  // "Previous page" of the page that comes next is this one.
  if (envelope.status.next) trail.record(here, list, envelope.status.next, hash);
  const { text, previous, next } = pagerLinks(
    here,
    list,
    position,
    envelope.status,
    PAGE_SIZE,
    position.after ? trail.before(here, list, position.after) : undefined,
  );
  return h(
    'nav',
    { class: 'pager', 'aria-label': 'Pages' },
    h('p', { 'aria-live': 'polite' }, text),
    previous
      ? h('a', { class: 'button secondary', href: previous.href }, previous.label)
      : h('span', { class: 'button secondary', 'aria-disabled': 'true' }, 'Previous page'),
    next ? h('a', { class: 'button secondary', href: next }, 'Next page') : h('span', { class: 'button secondary', 'aria-disabled': 'true' }, 'Next page'),
  );
}

/** The tab's `sessionStorage`, unless the browser refuses it (storage disabled). */
function sessionStorageOrNone(): Storage | undefined {
  try {
    return window.sessionStorage;
  } catch {
    return undefined;
  }
}
