import type { Doc } from './api-wire.js';
import type { AppContext } from './context.js';
import { h, replace, uid } from './dom.js';
import { latest } from './latest.js';
import type { ResourceMetadata } from './metadata.js';
import { containing } from './search-query.js';
import { resourceSearch } from './search.js';
import { documentLabel, humanize, valueAt } from './text.js';

export interface PickerOptions {
  /** The input's id, for its `<label for>`. */
  id: string;
  /** The picked document's label to show at first. */
  initial?: string;
  /** Called with the document chosen; the input then shows its label. */
  onPick(document: Doc): void;
  /** Called when the user empties the input. */
  onClear?(): void;
  /** Leave the input empty after a pick (adding to a list). */
  clearAfterPick?: boolean;
  describedBy?: string;
}

/**
 * A search-as-you-type picker of one document of `target` (an ARIA combobox with a listbox),
 * backed by the target's search route: it matches the target's label field, case-insensitively.
 */
export function createPicker(context: AppContext, target: ResourceMetadata, options: PickerOptions): HTMLElement {
  const search = resourceSearch(context, target);
  const listId = uid('options');
  const input = h('input', {
    id: options.id,
    type: 'text',
    role: 'combobox',
    'aria-autocomplete': 'list',
    'aria-expanded': 'false',
    'aria-controls': listId,
    'aria-describedby': options.describedBy,
    autocomplete: 'off',
    placeholder: search ? `Search by ${humanize(target.labelField).toLowerCase()}` : 'Identifier',
    value: options.initial ?? '',
  });
  const list = h('ul', { id: listId, role: 'listbox', class: 'picker-options', hidden: true });
  let found: Doc[] = [];
  let active = -1;
  let timer: number | undefined;
  // The latest search wins: an older one's result or failure never shows over a newer one, a pick or an emptied input.
  const searches = latest();

  // Closed by the user (a pick, Escape, leaving the input, emptying it): no search on its way, answered or failed, opens it again.
  const close = () => {
    searches.cancel();
    list.hidden = true;
    input.setAttribute('aria-expanded', 'false');
    input.removeAttribute('aria-activedescendant');
    active = -1;
  };
  const pick = (document: Doc) => {
    window.clearTimeout(timer);
    close();
    options.onPick(document);
    input.value = options.clearAfterPick ? '' : documentLabel(target, document);
  };
  const highlight = (index: number) => {
    active = index;
    list.querySelectorAll('[role=option]').forEach((option, i) => option.setAttribute('aria-selected', String(i === index)));
    const option = list.children[index];
    if (option) input.setAttribute('aria-activedescendant', option.id);
  };
  const show = (documents: Doc[]) => {
    found = documents;
    replace(
      list,
      documents.length
        ? documents.map((document, index) =>
            h(
              'li',
              {
                id: `${listId}-${index}`,
                role: 'option',
                'aria-selected': 'false',
                onmousedown: (event: Event) => event.preventDefault(),
                onclick: () => pick(document),
              },
              documentLabel(target, document),
              h('span', { class: 'muted' }, ` ${String(valueAt(document, target.idField))}`),
            ),
          )
        : h('li', { class: 'muted', role: 'option', 'aria-disabled': 'true', id: `${listId}-none` }, 'No match'),
    );
    list.hidden = false;
    input.setAttribute('aria-expanded', 'true');
    active = -1;
  };
  const showError = (error: unknown) => {
    replace(
      list,
      h(
        'li',
        { class: 'error', role: 'option', 'aria-disabled': 'true', id: `${listId}-error` },
        context.alert(error, `search ${target.plural}`).textContent ?? '',
      ),
    );
    list.hidden = false;
  };
  const lookup = (text: string) => {
    if (!search) return searches.cancel();
    return searches.run(() => search({ filter: text ? { [target.labelField]: containing(text) } : {}, sort: target.labelField, limit: 10 }), {
      done: (envelope) => show(envelope.result),
      failed: showError,
    });
  };

  input.addEventListener('input', () => {
    window.clearTimeout(timer);
    if (!input.value) {
      close();
      options.onClear?.();
      return;
    }
    timer = window.setTimeout(() => void lookup(input.value.trim()), 150);
  });
  input.addEventListener('keydown', (event) => {
    if (event.key === 'ArrowDown') {
      event.preventDefault();
      if (list.hidden) void lookup(input.value.trim());
      else highlight(Math.min(active + 1, found.length - 1));
    } else if (event.key === 'ArrowUp') {
      event.preventDefault();
      highlight(Math.max(active - 1, 0));
    } else if (event.key === 'Enter' && !list.hidden) {
      // Enter in an open list picks (or does nothing); it never submits the form around it.
      event.preventDefault();
      if (active >= 0 && found[active]) pick(found[active]);
    } else if (event.key === 'Escape' && !list.hidden) {
      event.preventDefault();
      close();
    }
  });
  input.addEventListener('blur', () => window.setTimeout(close, 100));
  return h('div', { class: 'picker' }, input, list);
}
