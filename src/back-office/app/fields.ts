import { ApiError } from './api.js';
import type { AppContext } from './context.js';
import { h, replace, uid } from './dom.js';
import type { FieldMetadata } from './metadata.js';
import { fromInput, toInput } from './field-values.js';
import type { Doc } from './api-wire.js';
import { referenceId, referenceIds } from './expanded.js';
import { createPicker } from './picker.js';
import { documentLabel, fieldLabel, valueAt } from './text.js';

/** One editable field of a form: its row, the value to send, and where its error goes. */
export interface FieldControl {
  field: FieldMetadata;
  element: HTMLElement;
  /** The value to send: `undefined` sends nothing; `null` removes the field. */
  value(): unknown;
  /** Whether the user changed it (an edit sends changed fields only). */
  changed(): boolean;
  /** Shows (or clears) a message next to the field, tied to its control for assistive technology. */
  setError(message: string | undefined): void;
  focus(): void;
}

/** What a control needs to know of the form it is in. */
export interface FormScope {
  context: AppContext;
  /** The document being edited; absent in a create form. */
  document?: Doc;
  /** Labels of the referenced documents, by identifier (read once by the form; a picker adds the document picked). */
  referenced: Map<string, Doc>;
  /** The relationship routes of an array of references act at once on an existing document: the form gives them to the control. */
  relate?(field: FieldMetadata, id: string, add: boolean): Promise<Doc | undefined>;
}

/** A label, the control, a hint and the error slot, tied together by ids. */
function row(
  field: FieldMetadata,
  id: string,
  control: HTMLElement,
  hint?: string,
  label = fieldLabel(field),
): { element: HTMLElement; setError: (message?: string) => void } {
  const errorId = `${id}-error`;
  const hintId = hint ? `${id}-hint` : undefined;
  const error = h('p', { id: errorId, class: 'field-error', hidden: true });
  const described = [hintId, errorId].filter(Boolean).join(' ');
  const target = control.matches('input, select, textarea') ? control : control.querySelector<HTMLElement>('input, select, textarea');
  target?.setAttribute('aria-describedby', described);
  if (field.required) target?.setAttribute('aria-required', 'true');
  const element = h(
    'div',
    { class: 'field' },
    h('label', { for: id }, label, field.required && h('span', { class: 'required', 'aria-hidden': 'true' }, ' *')),
    control,
    hint && h('p', { id: hintId, class: 'hint' }, hint),
    error,
  );
  const setError = (message?: string) => {
    error.hidden = !message;
    replace(error, message ?? '');
    if (message) target?.setAttribute('aria-invalid', 'true');
    else target?.removeAttribute('aria-invalid');
  };
  return { element, setError };
}

/** The controls of a list of fields, nested objects as fieldsets; read-only and file fields are not controls. */
export function createControls(fields: FieldMetadata[], scope: FormScope): { elements: HTMLElement[]; controls: FieldControl[] } {
  const elements: HTMLElement[] = [];
  const controls: FieldControl[] = [];
  for (const field of fields) {
    if (field.readOnly || field.type === 'file' || field.type === 'files') continue;
    if (field.type === 'object') {
      const nested = createControls(field.fields ?? [], scope);
      if (!nested.controls.length) continue;
      elements.push(h('fieldset', { class: 'group' }, h('legend', {}, fieldLabel(field)), nested.elements));
      controls.push(...nested.controls);
      continue;
    }
    const control = createControl(field, scope);
    elements.push(control.element);
    controls.push(control);
  }
  return { elements, controls };
}

function createControl(field: FieldMetadata, scope: FormScope): FieldControl {
  const initial = scope.document ? valueAt(scope.document, field.path) : undefined;
  switch (field.type) {
    case 'reference':
      return referenceControl(field, scope, initial);
    case 'references':
      return referencesControl(field, scope, initial);
    default:
      return inputControl(field, initial, !scope.document);
  }
}

/** Text, numbers, dates, booleans, enums, identifiers, arrays of values and JSON: one native control each. */
function inputControl(field: FieldMetadata, initial: unknown, creating: boolean): FieldControl {
  const id = uid('field');
  const shown = field.writeOnly ? '' : toInput(field, initial);
  let control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
  let hint: string | undefined;
  if (field.enum) {
    control = h(
      'select',
      { id },
      h('option', { value: '' }, field.required ? 'Choose…' : '(none)'),
      field.enum.map((value) => h('option', { value }, value)),
    );
    control.value = shown;
  } else if (field.type === 'boolean') {
    control = h('input', { id, type: 'checkbox' });
    control.checked = initial === true;
  } else if (field.type === 'array' || field.type === 'json') {
    control = h('textarea', { id, rows: field.type === 'json' ? 5 : 3, spellcheck: 'false' });
    control.value = shown;
    hint = field.type === 'array' ? 'One value per line.' : 'JSON.';
  } else {
    const type = field.type === 'number' ? 'number' : field.type === 'date' ? 'date' : 'text';
    control = h('input', {
      id,
      type,
      value: shown,
      step: field.type === 'number' ? 'any' : undefined,
      min: field.min,
      max: field.max,
      minlength: field.minLength,
      maxlength: field.maxLength,
      autocomplete: field.writeOnly ? 'new-password' : 'off',
    });
    if (field.writeOnly) hint = creating ? 'Never shown once saved.' : 'Never shown: leave empty to keep it.';
    if (field.type === 'objectId') hint = '24 hexadecimal characters.';
  }
  const { element, setError } = row(field, id, control, hint);
  const current = () => (control instanceof HTMLInputElement && control.type === 'checkbox' ? String(control.checked) : control.value);
  const start = field.type === 'boolean' ? String(initial === true) : shown;
  const changed = () => current() !== start;
  return {
    field,
    element,
    changed,
    setError,
    focus: () => control.focus(),
    value: () => {
      if (field.type === 'boolean') return (control as HTMLInputElement).checked;
      const text = control.value;
      if (text.trim() === '') return creating || field.writeOnly ? undefined : null;
      return fromInput(field, text);
    },
  };
}

/** Identifier of a referenced document as the reference field stores it. */
function idOf(document: Doc): string {
  return String(document._id);
}

/** A link to a document's page. */
export function documentLink(scope: Pick<FormScope, 'context'>, targetName: string, document: Doc, text?: string): HTMLElement {
  const target = scope.context.resourceNamed(targetName);
  if (!target || !target.routes.includes('findOne')) return h('span', {}, text ?? String(document._id));
  return h('a', { href: `#/${target.path}/${encodeURIComponent(String(valueAt(document, target.idField)))}` }, text ?? documentLabel(target, document));
}

/**
 * One reference: a picker on the target's search, and a link to the document it points to. The
 * value is an identifier (or, read with `expand`, the document); the write sends the identifier.
 */
function referenceControl(field: FieldMetadata, scope: FormScope, initial: unknown): FieldControl {
  const target = scope.context.resourceNamed(field.target!)!;
  const id = uid('field');
  const start = referenceId(initial) ?? '';
  let value = start;
  const link = h('span', { class: 'reference-link' });
  const showLink = (document?: Doc) =>
    replace(link, document ? documentLink(scope, target.name, document, `Open ${fieldLabel(field).toLowerCase()}: ${documentLabel(target, document)}`) : '');
  const known = start ? scope.referenced.get(start) : undefined;
  const picker = createPicker(scope.context, target, {
    id,
    initial: known ? documentLabel(target, known) : start,
    onPick: (document) => {
      value = idOf(document);
      scope.referenced.set(value, document);
      showLink(document);
    },
    onClear: () => {
      value = '';
      showLink();
    },
  });
  showLink(known);
  const { element, setError } = row(field, id, h('div', { class: 'reference' }, picker, link));
  return {
    field,
    element,
    setError,
    changed: () => value !== start,
    focus: () => picker.querySelector('input')?.focus(),
    value: () => (value ? value : scope.document ? null : undefined),
  };
}

/** An array of references: the documents it holds, each removable, and a picker to add one. */
function referencesControl(field: FieldMetadata, scope: FormScope, initial: unknown): FieldControl {
  const target = scope.context.resourceNamed(field.target!)!;
  const start = Array.isArray(initial) ? referenceIds(initial) : [];
  let ids = [...start];
  // On an existing document with the relationship routes, each add and remove is a request of its own.
  const immediate = Boolean(scope.document && scope.relate && field.routes?.includes('add') && field.routes.includes('remove'));
  const id = uid('field');
  const list = h('ul', { class: 'chips', 'aria-label': fieldLabel(field) });
  const status = h('div', { class: 'field-alert', hidden: true });
  const fail = (error: unknown) => {
    // A 412 is the form's to tell (with its reload); others here, as an alert of their own (a 401 with its credentials button).
    if (error instanceof ApiError && error.status === 412) return;
    status.hidden = false;
    replace(status, scope.context.alert(error, `change ${fieldLabel(field).toLowerCase()}`));
  };
  const render = () =>
    replace(
      list,
      ids.length
        ? ids.map((item) => {
            const document = scope.referenced.get(item) ?? { _id: item };
            const name = documentLabel(target, document);
            return h(
              'li',
              { class: 'chip' },
              documentLink(scope, target.name, document, name),
              h(
                'button',
                {
                  type: 'button',
                  class: 'chip-remove',
                  'aria-label': `Remove ${name} from ${fieldLabel(field).toLowerCase()}`,
                  onclick: () => void change(item, false),
                },
                '×',
              ),
            );
          })
        : h('li', { class: 'muted' }, 'None'),
    );
  const change = async (item: string, add: boolean, document?: Doc) => {
    if (document) scope.referenced.set(item, document);
    if (add && ids.includes(item)) return;
    // A removal from the keyboard: the focus goes to the next chip's button (or the picker), not to the page's start with the removed button.
    const focused = !add && list.contains(window.document.activeElement);
    status.hidden = true;
    if (immediate) {
      try {
        await scope.relate!(field, item, add);
      } catch (error) {
        fail(error);
        return;
      }
    }
    const index = ids.indexOf(item);
    ids = add ? [...ids, item] : ids.filter((other) => other !== item);
    render();
    if (focused) (list.querySelectorAll<HTMLElement>('.chip-remove')[Math.min(index, ids.length - 1)] ?? picker.querySelector('input'))?.focus();
  };
  const picker = createPicker(scope.context, target, { id, clearAfterPick: true, onPick: (document) => void change(idOf(document), true, document) });
  render();
  const { element, setError } = row(field, id, picker, undefined, `Add to ${fieldLabel(field).toLowerCase()}`);
  element.prepend(h('p', { class: 'group-label' }, fieldLabel(field)), list, status);
  return {
    field,
    element,
    setError,
    changed: () => !immediate && ids.join() !== start.join(),
    focus: () => picker.querySelector('input')?.focus(),
    value: () => (immediate ? undefined : ids),
  };
}
