import type { AppContext } from './context.js';
import { h, replace, uid } from './dom.js';
import type { FieldMetadata, ResourceMetadata } from './metadata.js';
import type { Doc } from './api-wire.js';
import { documentLabel, fieldLabel, formatSize, valueAt } from './text.js';

/** A stored file as the document holds it (`FileRef`). */
interface FileRef {
  _id: string;
  name: string;
  contentType: string;
  size: number;
}

/** What a file field's widget needs of its form: the document, its tag, and a way to take the answer of a write. */
export interface FileScope {
  context: AppContext;
  resource: ResourceMetadata;
  document: Doc;
  etag(): string | undefined;
  /** A file route answered the updated document: the form takes it (new tag, new values). */
  updated(document: Doc, etag: string | undefined): void;
}

/**
 * The raster images: the only types previewed. An object URL is of the app's own origin, so a
 * blob of SVG (or HTML) opened from it ("open image in new tab") would run its script there.
 */
const RASTER = /^image\/(png|jpeg|webp|gif|avif)$/;

/**
 * A file field (`@FileProp`) on an existing document: a preview of each file (a resized image
 * when the field has variants), a download, a remove button and an upload input, each enabled
 * by its route.
 */
export function createFileField(field: FieldMetadata, scope: FileScope): HTMLElement {
  const routes = new Set(field.routes ?? []);
  const gallery = field.type === 'files';
  const label = fieldLabel(field);
  const headingId = uid('files');
  const inputId = uid('upload');
  const status = h('div', { class: 'file-status' });
  const items = h('ul', { class: gallery ? 'gallery' : 'single-file' });
  const documentId = String(valueAt(scope.document, scope.resource.idField));
  const at = (file?: FileRef) => ({ resource: scope.resource, id: documentId, field: field.path, item: gallery && file ? file._id : undefined });
  const url = (file: FileRef) => scope.context.api.routeUrl('download', at(file));

  const render = () => {
    const value = valueAt(scope.document, field.path);
    const files = (gallery ? (Array.isArray(value) ? value : []) : value ? [value] : []) as FileRef[];
    replace(items, files.length ? files.map((file) => fileItem(file)) : h('li', { class: 'muted' }, gallery ? 'No files yet.' : 'No file.'));
  };
  const write = async (doing: string, done: string, run: () => Promise<{ body: Doc; etag?: string }>) => {
    replace(status);
    try {
      const answer = await run();
      scope.updated(answer.body, answer.etag);
      render();
      scope.context.announce(done);
    } catch (error) {
      replace(status, scope.context.alert(error, doing));
    }
  };
  const fileItem = (file: FileRef) => {
    const description = `${label} of ${documentLabel(scope.resource, scope.document)}: ${file.name}`;
    const preview = h('div', { class: 'preview' });
    if (routes.has('download') && RASTER.test(file.contentType)) void showImage(preview, file, description);
    else if (file.contentType.startsWith('image/')) replace(preview, h('span', { class: 'muted' }, 'No preview'));
    return h(
      'li',
      { class: 'file' },
      preview,
      h('p', { class: 'file-name' }, file.name, h('span', { class: 'muted' }, ` ${file.contentType}, ${formatSize(file.size)}`)),
      h(
        'div',
        { class: 'actions' },
        routes.has('download') &&
          h(
            'button',
            { type: 'button', class: 'button secondary', onclick: () => void download(file) },
            'Download',
            h('span', { class: 'visually-hidden' }, ` ${file.name}`),
          ),
        routes.has('deleteFile') &&
          h(
            'button',
            {
              type: 'button',
              class: 'button danger',
              onclick: () =>
                void write(`remove ${file.name}`, `${label}: removed ${file.name}.`, () =>
                  scope.context.api.call('deleteFile', at(file), { ifMatch: scope.etag() }),
                ),
            },
            'Remove',
            h('span', { class: 'visually-hidden' }, ` ${file.name}`),
          ),
      ),
    );
  };
  const showImage = async (preview: HTMLElement, file: FileRef, description: string) => {
    const query = field.variants ? new URLSearchParams({ w: '320', h: '320' }) : undefined;
    try {
      const blob = await scope.context.api.blob(url(file), query).catch(() => scope.context.api.blob(url(file)));
      // The type the server answered, not only the one the document names.
      if (!RASTER.test(blob.type)) throw new Error(`not a raster image: ${blob.type}`);
      const src = URL.createObjectURL(blob);
      const image = h('img', { src, alt: description });
      // Once shown (or failed), the URL is of no more use: revoked, it can no longer be opened.
      const revoke = () => URL.revokeObjectURL(src);
      image.addEventListener('load', revoke, { once: true });
      image.addEventListener('error', revoke, { once: true });
      replace(preview, image);
    } catch {
      replace(preview, h('span', { class: 'muted' }, 'No preview'));
    }
  };
  const download = async (file: FileRef) => {
    try {
      // As bytes, never as their type: the object URL is of the app's origin, and an SVG or HTML blob would run there if opened.
      const bytes = new Blob([await scope.context.api.blob(url(file))], { type: 'application/octet-stream' });
      const link = h('a', { href: URL.createObjectURL(bytes), download: file.name });
      link.click();
      window.setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
    } catch (error) {
      replace(status, scope.context.alert(error, `download ${file.name}`));
    }
  };
  const upload = routes.has(gallery ? 'addFile' : 'upload');
  const input = h('input', { id: inputId, type: 'file', accept: field.accept?.join(','), 'aria-describedby': `${inputId}-hint` });
  input.addEventListener('change', () => {
    const file = input.files?.[0];
    if (!file) return;
    const form = new FormData();
    form.append('file', file, file.name);
    void write(`upload ${file.name}`, `${label}: uploaded ${file.name}.`, () =>
      scope.context.api.call(gallery ? 'addFile' : 'upload', at(), { body: form, ifMatch: scope.etag() }),
    ).then(() => {
      input.value = '';
    });
  });
  render();
  return h(
    'section',
    { class: 'field file-field', 'aria-labelledby': headingId },
    h('h3', { id: headingId }, label),
    items,
    upload &&
      h(
        'div',
        { class: 'upload' },
        h('label', { for: inputId }, gallery ? `Add a file to ${label.toLowerCase()}` : `Upload ${file(label)}`),
        input,
        h(
          'p',
          { id: `${inputId}-hint`, class: 'hint' },
          [field.accept?.join(', '), field.maxSize && `up to ${formatSize(field.maxSize)}`, field.maxFiles && `at most ${field.maxFiles} files`]
            .filter(Boolean)
            .join(', '),
        ),
      ),
    status,
  );
}

function file(label: string): string {
  return `a new ${label.toLowerCase()}`;
}
