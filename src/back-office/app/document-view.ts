import { ApiError, type Tagged } from './api.js';
import type { AppContext } from './context.js';
import { confirmDialog } from './dialog.js';
import { h, replace } from './dom.js';
import { createControls, type FieldControl, type FormScope } from './fields.js';
import { flatten, isDeletionMark } from './field-rules.js';
import { setAt } from './field-values.js';
import { createFileField } from './files.js';
import type { FieldMetadata, ResourceMetadata } from './metadata.js';
import type { Doc } from './api-wire.js';
import { readDocument, referencedDocuments, type ReadDocument } from './search.js';
import { documentLabel, fieldLabel, formatValue, humanize, pluralName, singularName, valueAt } from './text.js';

/** A document's page (`#/company/<id>`), or the create form (`#/company/new`) when `id` is undefined. */
export async function renderDocument(context: AppContext, main: HTMLElement, resource: ResourceMetadata, id: string | undefined): Promise<void> {
  const heading = h('h1', { tabindex: '-1' }, id ? `${singularName(resource)}` : `New ${singularName(resource).toLowerCase()}`);
  const alerts = h('div', { class: 'alerts' });
  replace(main, breadcrumb(resource), heading, alerts);
  if (id === undefined) return new DocumentPage(context, main, resource, undefined, heading, alerts).render();
  await context.pages.run(() => readDocument(context, resource, id), {
    done: (loaded) => new DocumentPage(context, main, resource, loaded, heading, alerts).render(),
    failed: (error) => replace(alerts, context.loadFailed(error, `open this ${singularName(resource).toLowerCase()}`)),
  });
}

function breadcrumb(resource: ResourceMetadata): HTMLElement {
  return h('nav', { class: 'breadcrumb', 'aria-label': 'Breadcrumb' }, h('a', { href: `#/${resource.path}` }, pluralName(resource)));
}

class DocumentPage {
  private document?: Doc;
  /** The document's own tag (a read without `expand`): what every write sends as `If-Match`. */
  private etag?: string;
  private controls: FieldControl[] = [];
  /** The documents its references point to, by identifier: kept from render to render, added to by the pickers. */
  private referenced = new Map<string, Doc>();
  /** Identifiers known to name no document (the read with `expand` found none). */
  private missing = new Set<string>();

  constructor(
    private readonly context: AppContext,
    private readonly main: HTMLElement,
    private readonly resource: ResourceMetadata,
    loaded: ReadDocument | undefined,
    private readonly heading: HTMLElement,
    private readonly alerts: HTMLElement,
  ) {
    this.loaded(loaded);
  }

  /** On a create of a resource with sub-types: the value of the key chosen. */
  private subType?: string;

  private loaded(read: ReadDocument | undefined): void {
    this.document = read?.body;
    this.etag = read?.etag;
    this.referenced = read?.referenced ?? new Map();
    this.missing = read?.missing ?? new Set();
  }

  private get noun(): string {
    return singularName(this.resource).toLowerCase();
  }

  async render(): Promise<void> {
    const { resource, document } = this;
    const canSave = document ? resource.routes.some((route) => route === 'patch' || route === 'update') : resource.routes.includes('create');
    const referenced = document
      ? await referencedDocuments(this.context, flatten(resource.fields), [document], this.referenced, this.missing)
      : this.referenced;
    const scope: FormScope = { context: this.context, document, referenced, relate: (field, id, add) => this.relate(field, id, add) };
    const { fields, chooser } = this.subTypeForm();
    const { elements, controls } = createControls(fields, scope);
    if (chooser) elements.unshift(chooser);
    this.controls = canSave ? controls : [];
    if (document) {
      replace(this.heading, `${singularName(resource)}: ${documentLabel(resource, document)}`);
      window.document.title = `${documentLabel(resource, document)} · ${this.context.metadata.title}`;
    }
    const form = h(
      'form',
      {
        class: 'document-form',
        novalidate: true,
        'aria-labelledby': 'page-heading',
        onsubmit: (event: Event) => {
          event.preventDefault();
          void this.save();
        },
      },
      canSave ? elements : h('p', { class: 'muted' }, 'This resource cannot be changed here (its write routes are disabled).'),
      h(
        'div',
        { class: 'form-actions' },
        canSave && h('button', { type: 'submit', class: 'button primary' }, document ? 'Save' : `Create ${this.noun}`),
        document &&
          resource.routes.includes('delete') &&
          h('button', { type: 'button', class: 'button danger', onclick: () => void this.remove() }, `Delete ${this.noun}`),
      ),
    );
    this.heading.id = 'page-heading';
    const sections: Array<HTMLElement | false | undefined> = [
      document && this.readOnlyFields(document),
      form,
      document && this.fileFields(document),
      document && this.related(document),
    ];
    // Keep what is above the page's own content (breadcrumb, heading, alerts), replace the rest.
    while (this.alerts.nextSibling) this.alerts.nextSibling.remove();
    for (const section of sections) if (section) this.main.append(section);
  }

  /** `_id`, timestamps and `readonly` fields, as a list of terms. */
  private readOnlyFields(document: Doc): HTMLElement | undefined {
    // The mark of soft delete is empty on every document a page opens: the trash shows it.
    const fields = flatten(this.resource.fields).filter((field) => field.readOnly && !isDeletionMark(this.resource, field));
    if (!fields.length) return undefined;
    return h(
      'dl',
      { class: 'read-only' },
      fields.map((field) => [h('dt', {}, fieldLabel(field)), h('dd', {}, formatValue(field, valueAt(document, field.path)) || '—')]),
    );
  }

  private fileFields(document: Doc): HTMLElement | undefined {
    const fields = flatten(this.resource.fields).filter((field) => field.type === 'file' || field.type === 'files');
    if (!fields.length) return undefined;
    const scope = {
      context: this.context,
      resource: this.resource,
      document,
      etag: () => this.etag,
      updated: (next: Doc, etag: string | undefined) => {
        Object.assign(document, next);
        this.etag = etag ?? this.etag;
      },
    };
    return h(
      'section',
      { class: 'files', 'aria-label': 'Files' },
      fields.map((field) => createFileField(field, scope)),
    );
  }

  /** Links to the documents that reference this one, through the reverse routes. */
  private related(document: Doc): HTMLElement | undefined {
    const id = String(valueAt(document, this.resource.idField));
    const links = this.resource.referencedBy
      .filter((entry) => entry.routes.length)
      .map((entry) => {
        const source = this.context.resourceNamed(entry.resource);
        if (!source) return undefined;
        const text = `${pluralName(source)} whose ${humanize(entry.field).toLowerCase()} ${entry.isArray ? 'include' : 'is'} this ${this.noun}`;
        return h('li', {}, h('a', { href: `#/${this.resource.path}/${encodeURIComponent(id)}/${source.plural}/${entry.field}` }, text));
      })
      .filter((item): item is HTMLLIElement => Boolean(item));
    if (!links.length) return undefined;
    return h('section', { class: 'related', 'aria-labelledby': 'related-heading' }, h('h2', { id: 'related-heading' }, 'Related'), h('ul', {}, links));
  }

  /** Adds or removes one reference through the relationship route, at once. */
  private async relate(field: FieldMetadata, id: string, add: boolean): Promise<Doc | undefined> {
    const own = String(valueAt(this.document, this.resource.idField));
    let answer: Tagged;
    try {
      answer = await this.context.api.call(add ? 'add' : 'remove', { resource: this.resource, id: own, field: field.path, item: id }, { ifMatch: this.etag });
    } catch (error) {
      // Someone else changed the document: the page says so and offers to reload it, as for a save.
      if (error instanceof ApiError && error.status === 412) this.showSaveError(error);
      throw error;
    }
    this.document = answer.body;
    this.etag = answer.etag ?? this.etag;
    this.context.announce(`${fieldLabel(field)}: ${add ? 'added' : 'removed'}.`);
    return answer.body;
  }

  /**
   * With sub-types, the form shows the fields of one: the document's (its key shown, not editable: a
   * document keeps its sub-type), or on a create the one chosen by the key's select (the first at
   * first), whose change makes the form again with that sub-type's fields.
   */
  private subTypeForm(): { fields: FieldMetadata[]; chooser?: HTMLElement } {
    const { resource, document } = this;
    const subTypes = resource.subTypes;
    if (!subTypes) return { fields: resource.fields };
    const { key, types } = subTypes;
    const chosen = document ? String(valueAt(document, key)) : (this.subType ??= types[0].value);
    const own = types.find((type) => type.value === chosen);
    const fields = (own?.fields ?? resource.fields).filter((field) => field.path !== key);
    const id = `field-${key}`;
    if (document) return { fields, chooser: h('p', { class: 'field sub-type' }, h('strong', {}, `${humanize(key)}: `), chosen) };
    const select = h(
      'select',
      {
        id,
        onchange: (event: Event) => {
          this.subType = (event.target as HTMLSelectElement).value;
          void this.render();
        },
      },
      types.map((type) => h('option', { value: type.value }, type.value)),
    );
    select.value = chosen;
    return { fields, chooser: h('div', { class: 'field sub-type' }, h('label', { for: id }, humanize(key)), select) };
  }

  private async save(): Promise<void> {
    const { resource } = this;
    for (const control of this.controls) control.setError(undefined);
    replace(this.alerts);
    const body: Doc = {};
    // A create names its sub-type by the key (a document's never changes).
    if (resource.subTypes && !this.document) body[resource.subTypes.key] = this.subType;
    for (const control of this.controls) {
      if (this.document && !control.changed()) continue;
      const value = control.value();
      if (value !== undefined) setAt(body, control.field.path, value);
    }
    if (this.document && !Object.keys(body).length) {
      this.context.announce('Nothing to save: no field was changed.');
      return;
    }
    try {
      if (this.document) {
        const own = String(valueAt(this.document, resource.idField));
        const answer = await this.context.api.call(resource.routes.includes('patch') ? 'patch' : 'update', { resource, id: own }, { body, ifMatch: this.etag });
        this.document = answer.body;
        this.etag = answer.etag;
        await this.render();
        // The form was made again: the keyboard stays on its Save button.
        this.main.querySelector<HTMLElement>('button[type=submit]')?.focus();
        this.context.announce(`Saved ${this.noun} ${documentLabel(resource, answer.body)}.`);
      } else {
        const answer = await this.context.api.call('create', { resource }, { body });
        const id = String(valueAt(answer.body, resource.idField));
        this.context.announce(`Created ${this.noun} ${documentLabel(resource, answer.body)}.`);
        location.hash = `#/${resource.path}/${encodeURIComponent(id)}`;
      }
    } catch (error) {
      this.showSaveError(error);
    }
  }

  private showSaveError(error: unknown): void {
    if (error instanceof ApiError && error.status === 412) {
      replace(
        this.alerts,
        this.context.alert(
          new ApiError(
            412,
            error.code,
            `Someone else changed this ${this.noun} since you opened it, so your changes were not saved. Reload it to see the current version, then make ` +
              `your changes again.`,
          ),
          `save this ${this.noun}`,
          { label: `Reload ${this.noun}`, run: () => void this.reload() },
        ),
      );
      this.alerts.querySelector('button')?.focus();
      return;
    }
    const unplaced = error instanceof ApiError ? this.placeErrors(error) : [];
    replace(this.alerts, this.context.alert(error, `save this ${this.noun}`));
    if (unplaced.length)
      this.alerts.firstElementChild?.append(
        h(
          'ul',
          {},
          unplaced.map((message) => h('li', {}, message)),
        ),
      );
    const invalid = this.controls.find((control) => control.element.querySelector('[aria-invalid=true]'));
    if (invalid) invalid.focus();
  }

  /** Puts each detail next to the field it names (`details[].path`); answers the messages no field takes. */
  private placeErrors(error: ApiError): string[] {
    const unplaced: string[] = [];
    for (const detail of error.details) {
      const control = detail.path ? this.controlAt(detail.path) : undefined;
      if (control) control.setError(detail.message);
      else unplaced.push(detail.path ? `${detail.path}: ${detail.message}` : detail.message);
    }
    return unplaced;
  }

  private controlAt(path: string): FieldControl | undefined {
    let best: FieldControl | undefined;
    for (const control of this.controls) {
      const own = control.field.path;
      if ((path === own || path.startsWith(`${own}.`)) && (!best || own.length > best.field.path.length)) best = control;
    }
    return best;
  }

  private async reload(): Promise<void> {
    const own = String(valueAt(this.document, this.resource.idField));
    replace(this.alerts);
    // The page's latest load wins: of two reloads, the later one's version stays.
    await this.context.pages.run(() => readDocument(this.context, this.resource, own), {
      done: async (loaded) => {
        this.loaded(loaded);
        await this.render();
        this.context.announce(`Reloaded: this is the current version of the ${this.noun}.`);
        this.heading.focus();
      },
      failed: (error) => replace(this.alerts, this.context.alert(error, `reload this ${this.noun}`)),
    });
  }

  private async remove(): Promise<void> {
    const { resource, document } = this;
    const name = documentLabel(resource, document);
    // Soft delete: the document goes to the trash, whence it comes back where the restore route is served.
    const trash =
      resource.softDelete && (resource.routes.includes('restore') ? 'It goes to the trash, from where it can be restored.' : 'It goes to the trash.');
    const confirmed = await confirmDialog(`Delete ${this.noun} ${name}?`, trash || 'This cannot be undone.', `Delete ${this.noun}`);
    if (!confirmed) return;
    replace(this.alerts);
    try {
      await this.context.api.call('delete', { resource, id: String(valueAt(document, resource.idField)) }, { ifMatch: this.etag });
      this.context.announce(trash ? `Deleted ${this.noun} ${name}: it is in the trash.` : `Deleted ${this.noun} ${name}.`);
      location.hash = `#/${resource.path}`;
    } catch (error) {
      if (error instanceof ApiError && error.status === 412) this.showSaveError(error);
      else replace(this.alerts, this.context.alert(error, `delete this ${this.noun}`));
      (this.alerts.querySelector('button') as HTMLElement | null)?.focus();
    }
  }
}
