import { Api, ApiError, authOfPage } from './api.js';
import { describeError } from './api-wire.js';
import { AppContext, LOAD_FAILED } from './context.js';
import { credentialsDialog } from './credentials.js';
import { renderDocument } from './document-view.js';
import { h, replace } from './dom.js';
import { renderImport } from './import-view.js';
import { renderList } from './list-view.js';
import type { BackOfficeMetadata } from './metadata.js';
import { pluralName } from './text.js';
import { renderTrash } from './trash-view.js';

/**
 * The back office: a menu of the resources, and a page per hash route —
 * `#/company` (list), `#/company/new`, `#/company/import`, `#/company/trash`, `#/company/<id>`, `#/user/<id>/companies/owner` (reverse list).
 */
async function start(): Promise<void> {
  const metadataUrl = new URL('../metadata', import.meta.url);
  const main = h('main', { id: 'main', tabindex: '-1' });
  const status = h('div', { class: 'status', role: 'status', 'aria-live': 'polite' });
  const credentialsButton = h('button', { type: 'button', class: 'button secondary' }, 'Credentials');
  const nav = h('nav', { class: 'menu', 'aria-label': 'Resources' });
  const title = h('a', { class: 'title', href: '#/' }, 'Back office');
  document.body.append(
    h(
      'a',
      {
        class: 'skip-link',
        href: '#main',
        onclick: (event: Event) => {
          event.preventDefault();
          main.focus();
        },
      },
      'Skip to content',
    ),
    h('header', { class: 'top' }, title, credentialsButton),
    h('div', { class: 'layout' }, nav, h('div', { class: 'content' }, status, main)),
  );

  // Credentials before the metadata: its route may be guarded too.
  const auth = authOfPage();
  const api = new Api({ apiBase: '', auth });
  let context: AppContext | undefined;
  // New credentials load again what could not load; a page that did load stays as it is (with the user's edits).
  const ask = credentialsDialog(auth, api, () => {
    if (!context) void load();
    else if (main.querySelector(`[${LOAD_FAILED}]`)) void route();
  });
  credentialsButton.addEventListener('click', ask);
  const load = async (): Promise<void> => {
    let metadata: BackOfficeMetadata;
    try {
      metadata = (await api.json<BackOfficeMetadata>('GET', metadataUrl.pathname)).body;
    } catch (error) {
      const { title: heading, text } = describeError(error, 'load the back office', auth.header);
      const denied = error instanceof ApiError && (error.status === 401 || error.status === 403);
      replace(
        main,
        h('h1', { tabindex: '-1' }, heading),
        h(
          'div',
          { class: 'alert', role: 'alert' },
          h('p', {}, text),
          denied && h('button', { type: 'button', class: 'button', onclick: ask }, 'Enter credentials'),
        ),
      );
      return;
    }
    context = new AppContext(metadata, status, ask);
    replace(title, metadata.title);
    replace(
      nav,
      h(
        'ul',
        {},
        metadata.resources.map((resource) => h('li', {}, h('a', { href: `#/${resource.path}`, 'data-path': resource.path }, pluralName(resource)))),
      ),
    );
    await route();
  };

  // aria-busy while any page is loading (assistive technology waits; so can a test).
  let loading = 0;
  const route = async (): Promise<void> => {
    if (!context) return;
    loading += 1;
    main.setAttribute('aria-busy', 'true');
    try {
      await show(context);
    } finally {
      loading -= 1;
      if (!loading) main.setAttribute('aria-busy', 'false');
    }
  };
  const show = async (current: AppContext): Promise<void> => {
    const [path, search = ''] = location.hash.replace(/^#\/?/, '').split('?');
    const params = new URLSearchParams(search);
    const segments = path.split('/').filter(Boolean).map(decodeURIComponent);
    const resource = segments[0] ? current.resourceAt(segments[0]) : undefined;
    for (const link of nav.querySelectorAll('a')) {
      if (link.dataset.path === resource?.path && segments.length === 1) link.setAttribute('aria-current', 'page');
      else link.removeAttribute('aria-current');
    }
    current.pageChanged();
    // Each page renders into a view of its own: a page still loading when the user moves on
    // finishes in a view no longer shown, and never adds to the next page.
    const view = h('div', { class: 'view' });
    replace(main, view);
    const rendering = render(current, view, segments, params);
    // Focus goes to the new page's heading as soon as it is there (each page puts it first, before
    // it loads anything): never later, when the user may already be typing in the page.
    view.querySelector<HTMLElement>('h1')?.focus();
    await rendering;
  };
  window.addEventListener('hashchange', () => void route());
  await load();
}

/**
 * The page of a hash route: `#/company`, `#/company/new`, `#/company/import`,
 * `#/company/trash`, `#/company/<id>`, `#/user/<id>/companies/owner`, else the home page.
 */
async function render(context: AppContext, view: HTMLElement, segments: string[], params: URLSearchParams): Promise<void> {
  const { metadata } = context;
  const resource = segments[0] ? context.resourceAt(segments[0]) : undefined;
  const source = segments.length === 4 ? metadata.resources.find((candidate) => candidate.plural === segments[2]) : undefined;
  if (resource && segments.length === 1) {
    document.title = `${pluralName(resource)} · ${metadata.title}`;
    return renderList(context, view, resource, params);
  }
  // Like `new`, `import` is a page of its own where the resource enables the route (a document whose id is `import` is not reached).
  if (resource && segments.length === 2 && segments[1] === 'import' && resource.routes.includes('import')) {
    document.title = `Import ${pluralName(resource).toLowerCase()} · ${metadata.title}`;
    return renderImport(context, view, resource);
  }
  // So is `trash`, where soft delete serves the route that searches it.
  if (resource && segments.length === 2 && segments[1] === 'trash' && resource.routes.includes('trash')) {
    document.title = `Trash: ${pluralName(resource).toLowerCase()} · ${metadata.title}`;
    return renderTrash(context, view, resource, params);
  }
  if (resource && segments.length === 2) {
    document.title = `${segments[1] === 'new' ? 'New' : 'Edit'} ${resource.path} · ${metadata.title}`;
    return renderDocument(context, view, resource, segments[1] === 'new' ? undefined : segments[1]);
  }
  if (resource && source) {
    document.title = `${pluralName(source)} · ${metadata.title}`;
    return renderList(context, view, source, params, { target: resource, id: segments[1], field: segments[3] });
  }
  document.title = metadata.title;
  renderHome(context, view);
}

function renderHome(context: AppContext, main: HTMLElement): void {
  replace(
    main,
    h('h1', { tabindex: '-1' }, context.metadata.title),
    h('p', {}, 'Choose what to manage:'),
    h(
      'ul',
      { class: 'cards' },
      context.metadata.resources.map((resource) => h('li', {}, h('a', { href: `#/${resource.path}` }, pluralName(resource)))),
    ),
  );
}

void start();
