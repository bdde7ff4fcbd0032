import { ApiError } from './api.js';
import type { Doc } from './api-wire.js';
import type { AppContext } from './context.js';
import { confirmDialog } from './dialog.js';
import { h, replace } from './dom.js';
import { trashColumns } from './field-rules.js';
import { pageHash, positionOf, type ListPosition } from './list-paging.js';
import { documentCells, pager, PAGE_SIZE } from './list-view.js';
import type { ResourceMetadata } from './metadata.js';
import { referencedDocuments } from './search.js';
import { toQueryString } from './search-query.js';
import { documentLabel, fieldLabel, pluralName, singularName, valueAt } from './text.js';

/**
 * A resource's trash (`#/company/trash`, where soft delete serves its `trash` route): the documents
 * a delete marked, the latest deletion first (`sort=-deletedAt`), in the list's columns and when
 * each was deleted, paged as a sorted list is (cursors: see list-paging.ts). Each row offers
 * **Restore** (the `restore` route: the document lives again, and leaves the trash) and **Delete
 * forever** (the `purge` route, after a confirmation), each where its route is served. Every value
 * and every message of the server is shown as text.
 */
export async function renderTrash(context: AppContext, main: HTMLElement, resource: ResourceMetadata, params: URLSearchParams): Promise<void> {
  const plural = pluralName(resource).toLowerCase();
  const here = `#/${resource.path}/trash`;
  const mark = resource.softDelete?.field ?? 'deletedAt';
  // The trash has one order, its own: the list of the page's URL is that sort, whatever else it says.
  const list = new URLSearchParams({ sort: `-${mark}` });
  const columns = trashColumns(resource);
  const alerts = h('div', { class: 'alerts' });
  const can = { restore: resource.routes.includes('restore'), purge: resource.routes.includes('purge') };
  replace(
    main,
    h('nav', { class: 'breadcrumb', 'aria-label': 'Breadcrumb' }, h('a', { href: `#/${resource.path}` }, pluralName(resource))),
    h('h1', { tabindex: '-1', id: 'page-heading' }, `Trash: ${plural}`),
    h(
      'p',
      { class: 'muted' },
      `The ${plural} that were deleted, the latest first.`,
      can.restore && ' Restore brings one back to the list.',
      can.purge && ' Delete forever removes one for good.',
    ),
    alerts,
  );
  await context.pages.run(
    async () => {
      const page = async (position: ListPosition) => {
        const query = toQueryString({ filter: {}, sort: list.get('sort')!, limit: PAGE_SIZE, skip: position.skip, after: position.after });
        return context.api.search(context.api.routeUrl('trash', { resource }), query);
      };
      let position = positionOf(params);
      let restarted = false;
      let envelope: Awaited<ReturnType<typeof page>>;
      try {
        envelope = await page(position);
      } catch (error) {
        // A cursor the trash no longer continues (an old link): its first page, never an error page.
        if (!(position.after && error instanceof ApiError && error.code === 'MR_INVALID_CURSOR')) throw error;
        [position, restarted] = [{ skip: 0, from: 1 }, true];
        envelope = await page(position);
      }
      // The trash takes no `expand`: the names of what its documents reference are looked up, one search per target.
      return { envelope, position, restarted, referenced: await referencedDocuments(context, columns, envelope.result) };
    },
    {
      done: ({ envelope, position, restarted, referenced }) => {
        if (restarted) {
          history.replaceState(history.state, '', pageHash(here, list, position));
          replace(alerts, h('p', { class: 'notice' }, 'That page of the trash could not be found again: here is its first page.'));
        }
        const reload = () => renderTrash(context, main, resource, new URLSearchParams(pageHash(here, list, position).split('?')[1] ?? ''));
        const rows = envelope.result.map((document) => {
          const cells = documentCells(context, resource, columns, document, { referenced, expanded: [] }, false);
          const actions =
            (can.restore || can.purge) && h('td', { class: 'row-actions' }, rowActions(context, resource, document, { main, alerts, reload }, can));
          return h('tr', {}, cells, actions);
        });
        const caption = `${pluralName(resource)} in the trash, the latest deleted first`;
        main.append(
          h(
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
                  columns.map((field) => h('th', { scope: 'col', class: field.type === 'number' ? 'number' : undefined }, fieldLabel(field))),
                  (can.restore || can.purge) && h('th', { scope: 'col' }, 'Actions'),
                ),
              ),
              h(
                'tbody',
                {},
                rows.length
                  ? rows
                  : h('tr', {}, h('td', { colspan: columns.length + (can.restore || can.purge ? 1 : 0), class: 'muted' }, `No ${plural} in the trash.`)),
              ),
            ),
          ),
          pager(envelope, list, position, here),
        );
      },
      failed: (error) => replace(alerts, context.loadFailed(error, `list the trash of ${plural}`)),
    },
  );
}

/** The trash page a row is on: where its alerts go, and how it is read again once a row has left. */
interface TrashPage {
  main: HTMLElement;
  alerts: HTMLElement;
  reload(): Promise<void>;
}

/**
 * Restore and Delete forever of one document of the trash. The trash's answer carries no `ETag`
 * per document: where the resource requires `If-Match`, they send `If-Match: *` (a document in
 * the trash takes no other write: a restore or a purge made meanwhile is a 404, shown).
 */
function rowActions(
  context: AppContext,
  resource: ResourceMetadata,
  document: Doc,
  { main, alerts, reload }: TrashPage,
  can: { restore: boolean; purge: boolean },
): HTMLElement[] {
  const noun = singularName(resource).toLowerCase();
  const name = documentLabel(resource, document);
  const id = String(valueAt(document, resource.idField));
  const options = resource.requireIfMatch ? { ifMatch: '*' } : {};
  let running = false;
  const run = async (button: HTMLElement, doing: string, write: () => Promise<unknown>, done: string) => {
    if (running) return;
    running = true;
    // Busy, not disabled: a disabled button would lose the keyboard's focus.
    button.setAttribute('aria-disabled', 'true');
    replace(alerts);
    try {
      await write();
    } catch (error) {
      running = false;
      button.removeAttribute('aria-disabled');
      if (!main.isConnected) return;
      replace(alerts, context.alert(error, doing));
      (alerts.querySelector('button') ?? button).focus();
      return;
    }
    // The row leaves: the page is read again (unless the user moved on), then says what was done, the keyboard on its heading.
    if (!main.isConnected) return;
    await reload();
    if (!main.isConnected) return;
    context.announce(done, { page: true });
    main.querySelector<HTMLElement>('h1')?.focus();
  };
  const restore = can.restore && h('button', { type: 'button', class: 'button secondary' }, 'Restore', h('span', { class: 'visually-hidden' }, ` ${name}`));
  if (restore) {
    restore.addEventListener(
      'click',
      () =>
        void run(
          restore,
          `restore ${noun} ${name}`,
          () => context.api.call('restore', { resource, id }, options),
          `Restored ${noun} ${name}: it is back among the ${pluralName(resource).toLowerCase()}.`,
        ),
    );
  }
  const purge = can.purge && h('button', { type: 'button', class: 'button danger' }, 'Delete forever', h('span', { class: 'visually-hidden' }, ` ${name}`));
  if (purge) {
    purge.addEventListener('click', async () => {
      if (running) return;
      const confirmed = await confirmDialog(
        `Delete ${noun} ${name} forever?`,
        'It is removed for good, with its files, and cannot be restored.',
        'Delete forever',
      );
      if (!confirmed) return purge.focus();
      await run(purge, `delete ${noun} ${name} forever`, () => context.api.call('purge', { resource, id }, options), `Deleted ${noun} ${name} forever.`);
    });
  }
  return [restore, purge].filter((button): button is HTMLButtonElement => Boolean(button));
}
