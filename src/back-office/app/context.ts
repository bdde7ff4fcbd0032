import { Api } from './api.js';
import { ApiError, describeError } from './api-wire.js';
import { h, replace } from './dom.js';
import { latest } from './latest.js';
import type { BackOfficeMetadata, ResourceMetadata } from './metadata.js';

/** What every page is given: the metadata, the API, and the shell's message areas. */
export class AppContext {
  readonly api: Api;
  private readonly byPath: Map<string, ResourceMetadata>;
  private readonly byName: Map<string, ResourceMetadata>;

  constructor(
    readonly metadata: BackOfficeMetadata,
    /** The live region of short confirmations ("Saved"). */
    private readonly status: HTMLElement,
    /** Opens the credentials dialog. */
    readonly askCredentials: () => void,
  ) {
    this.api = new Api(metadata);
    this.byPath = new Map(metadata.resources.map((resource) => [resource.path, resource]));
    this.byName = new Map(metadata.resources.map((resource) => [resource.name, resource]));
  }

  resourceAt(path: string): ResourceMetadata | undefined {
    return this.byPath.get(path);
  }

  resourceNamed(name: string): ResourceMetadata | undefined {
    return this.byName.get(name);
  }

  private fresh = false;

  /**
   * The shown page's loads of its content (a list's search, a document and its reloads): the
   * latest wins, and a new page makes those of the page before stale (their results and failures dropped).
   */
  readonly pages = latest();

  /**
   * Announces a success politely (a live region); it stays through the next page (a create opens
   * the document, a delete the list), unless `page` says it belongs to this one (an export).
   */
  announce(message: string, { page = false }: { page?: boolean } = {}): void {
    replace(this.status, message);
    this.fresh = !page;
  }

  /** A new page: the previous page's announcement goes, unless it was made for this one. */
  pageChanged(): void {
    this.pages.cancel();
    if (!this.fresh) replace(this.status);
    this.fresh = false;
  }

  /** The alert of a page whose content could not load (marked: new credentials load it again). */
  loadFailed(error: unknown, doing: string): HTMLElement {
    const alert = this.alert(error, doing);
    alert.setAttribute(LOAD_FAILED, '');
    return alert;
  }

  /**
   * The alert a failed request shows at the top of a page: what happened in words, with the
   * server's message, and the way out (credentials for a 401 or a 403).
   */
  alert(error: unknown, doing: string, action?: { label: string; run: () => void }): HTMLElement {
    const { title, text } = describeError(error, doing, this.metadata.auth.header);
    const status = error instanceof ApiError ? error.status : 0;
    const credentials = status === 401 || status === 403 ? { label: 'Enter credentials', run: this.askCredentials } : undefined;
    const button = action ?? credentials;
    return h(
      'div',
      { class: 'alert', role: 'alert' },
      h('p', { class: 'alert-title' }, title),
      h('p', {}, text),
      button && h('button', { type: 'button', class: 'button', onclick: () => button.run() }, button.label),
    );
  }
}

/** The attribute of an alert that stands for a page that could not load: new credentials load that page again. */
export const LOAD_FAILED = 'data-load-failed';
