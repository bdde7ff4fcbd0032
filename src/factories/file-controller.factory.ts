import type { IncomingMessage } from 'node:http';
import { serving } from '../controllers/serving.util.js';
import { Inject, type OnModuleInit, type Type } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { Types } from 'mongoose';
import { writePreconditionOf } from '../concurrency/conditional-request.js';
import { etagOf, failedCondition } from '../concurrency/entity-tag.js';
import { setHeader, type HttpResponse } from '../call/http-response.util.js';
import { ModelRoutesException } from '../errors/model-routes.exception.js';
import { registerFastifyUploads, markUploadRoute } from '../files/fastify-uploads.js';
import { galleryFull } from '../files/file-errors.js';
import { sendFile, type DownloadRequest, type DownloadResponse, type Servable } from '../files/file-download.js';
import type { FileFieldDefinition } from '../files/file-options.js';
import type { FileRef } from '../files/file-ref.js';
import type { FileStore } from '../files/file-store.js';
import { UploadHeader } from '../files/image-pixels.js';
import { loadSharp, variantOf, variantOfFile } from '../files/image-variants.js';
import { type ImageWork } from '../files/image-work.js';
import { IMAGE_WORK } from '../constants.js';
import { readUpload, type UploadRequest } from '../files/upload-source.js';
import type { ResourceDefinition } from '../definitions/resource-definition.interface.js';
import type { FileRouteDefinition } from '../interfaces/route-definition.interface.js';
import { actionsOf, routeAction, type FileActionName } from '../metadata/route-actions.js';
import type { ModelRepository, PlainDocument } from '../repository/model-repository.js';
import { getModelRepositoryToken } from '../repository/model-repository.token.js';
import { serveRoute } from '../controllers/serve-route.js';
import { createControllerClass, decorateGeneratedHandler, foundIn, routePlans, viewsFor, type RoutePlans } from './controller.util.js';
import { locationOf } from './resource-controller.factory.js';
import { fileRouteNames } from '../routes/route-table.factory.js';

/**
 * Builds the controller of one file field (`CompanyLogoFileController`): the handlers
 * (`FileHandlers`) of its routes over their work (`FileRoutes`).
 */
export function createFileController(source: ResourceDefinition, file: FileFieldDefinition, routes: FileRouteDefinition[], connectionName?: string): Type {
  const uploads = routes.some((route) => routeAction(route.action).upload);
  const work = FileRoutes(source, file, uploads, connectionName);
  const names = fileRouteNames(source, file);
  const plans = routePlans(actionsOf('file'), routes, (action) => ({
    names,
    resource: source.name,
    answers: source.name,
    views: viewsFor(action, source),
    work: work.prototype[action],
    ownWork: true,
  }));
  const handlers = fileHandlers(work, plans);
  for (const route of routes) {
    decorateGeneratedHandler(handlers, route, plans[route.action]);
    if (routeAction(route.action).upload) markUploadRoute(handlers.prototype[route.handler]);
  }
  return createControllerClass(routes[0].controller, handlers, routes);
}

/**
 * The work of the routes of one file field, one method per action: `upload` (or `addFile` for a
 * gallery), `download` and `deleteFile`, on the resource's repository and its GridFS bucket. On
 * Fastify it registers, at startup, the parser that lets the upload routes stream their body.
 *
 * @param uploads whether the field has an upload route
 */
function FileRoutes(source: ResourceDefinition, file: FileFieldDefinition, uploads: boolean, connectionName: string | undefined) {
  const { field, gallery } = file;
  const where = `${source.name}.${field}`;
  const found = foundIn(source.name);

  class FileRoutesBase implements OnModuleInit {
    @Inject(getModelRepositoryToken(source.name, connectionName)) readonly repository!: ModelRepository;
    @Inject(HttpAdapterHost) readonly adapterHost!: HttpAdapterHost;
    @Inject(IMAGE_WORK) readonly images!: ImageWork;

    async onModuleInit(): Promise<void> {
      const adapter = this.adapterHost.httpAdapter;
      if (uploads && adapter?.getType() === 'fastify') registerFastifyUploads(adapter.getInstance());
      if (file.variants) await loadSharp(where);
    }

    async upload(key: string, request: UploadRequest, response: HttpResponse) {
      const store = this.repository.files!;
      const doc = await this.uploadTarget(key, request);
      return this.receive(store, doc, request, response, async (stored) => {
        const { document, replaced } = found(await serving(this, this.repository).swapFile(key, field, stored), key);
        if (replaced) await store.release([replaced._id]);
        return document;
      });
    }

    async addFile(key: string, request: UploadRequest, response: HttpResponse) {
      const doc = await this.uploadTarget(key, request);
      return this.receive(this.repository.files!, doc, request, response, async (stored) => {
        const updated = found(await serving(this, this.repository).addFile(key, field, stored), key);
        setHeader(response, 'Location', locationOf(request as never, stored._id));
        return updated;
      });
    }

    async download(key: string, fileId: string | undefined, query: Record<string, unknown>, request: DownloadRequest, response: DownloadResponse) {
      const store = this.repository.files!;
      const ref = this.fileOf(await serving(this, this.repository).getOne(key), key, fileId);
      const variant = variantOf(query, file, ref);
      const servable: Servable = variant
        ? await variantOfFile(store, ref, variant, file, this.images, where)
        : Object.assign({}, ref, { open: (range?: { start: number; end: number }) => store.download(ref._id, range) });
      sendFile(servable, file, request, response);
    }

    async deleteFile(key: string, fileId: string | undefined) {
      const ref = this.fileOf(await serving(this, this.repository).getOne(key), key, fileId);
      const updated = found(await serving(this, this.repository).removeFile(key, field, ref, gallery), key);
      // The document first: a failure here leaves a file no document names (the orphan sweep's), never a name without its file.
      await this.repository.files!.release([ref._id]);
      return updated;
    }

    /** The file a route names: the field's, or the gallery's file `fileId`; a 404 `MR_FILE_NOT_FOUND` when there is none. */
    private fileOf(doc: PlainDocument, key: string, fileId: string | undefined): FileRef {
      const value = doc[field] as FileRef | FileRef[] | null | undefined;
      if (gallery && !Types.ObjectId.isValid(fileId ?? '')) {
        throw new ModelRoutesException('MR_INVALID_ID', `'${fileId}' is not a file identifier (24 hexadecimal characters)`, [
          { path: '_id', message: 'not an ObjectId' },
        ]);
      }
      const ref = Array.isArray(value) ? value.find((candidate) => String(candidate._id) === fileId) : (value ?? undefined);
      if (!ref)
        throw new ModelRoutesException(
          'MR_FILE_NOT_FOUND',
          gallery ? `${source.name} '${key}' has no file '${fileId}' in ${field}` : `${source.name} '${key}' has no ${field}`,
        );
      return ref;
    }

    /** Reads the document an upload is for, refusing a failed `If-Match` or `If-None-Match` and a full gallery before a byte of the file is read. */
    private async uploadTarget(key: string, request: UploadRequest): Promise<PlainDocument> {
      const doc = await serving(this, this.repository).getOne(key);
      const failed = failedCondition(writePreconditionOf(request), etagOf(doc)!);
      if (failed) throw ModelRoutesException.preconditionFailed(source.name, key, etagOf(doc), failed);
      // Checked again by the write (another add may land meanwhile); here, a full gallery costs no upload.
      if (file.maxFiles !== undefined && ((doc[field] as FileRef[] | undefined)?.length ?? 0) >= file.maxFiles) throw galleryFull(where, file.maxFiles);
      return doc;
    }

    /**
     * Stores the request's file in GridFS and then, through `write`, in the document; if the request
     * fails, or the write does, the stored file is deleted. A response whose request was not read to
     * its end closes the connection (the client may still be sending).
     */
    private async receive<R>(
      store: FileStore,
      doc: PlainDocument,
      request: UploadRequest,
      response: HttpResponse,
      write: (stored: FileRef) => Promise<R>,
    ): Promise<R> {
      const incoming = (request.raw ?? request) as IncomingMessage;
      let stored: FileRef | undefined;
      let upload: Awaited<ReturnType<typeof readUpload>> | undefined;
      // An image to be resized: its dimensions are read from the first bytes kept on the way.
      const header = file.variants && new UploadHeader();
      try {
        upload = await readUpload(request, file, where);
        const bytes = header ? header.tap(upload.bytes) : upload.bytes;
        stored = await store.upload(bytes, { name: upload.name ?? field, declaredType: upload.declaredType }, file, {
          resource: source.name,
          document: doc._id,
          field,
        });
        await upload.complete();
        if (header) await header.check(await loadSharp(where), store, stored, file.variants!.maxPixels ?? this.images.options.maxPixels, where);
        return await write(stored);
      } catch (error) {
        upload?.stop();
        if (stored) await store.delete([stored._id]);
        if (!incoming.complete) setHeader(response, 'Connection', 'close');
        throw error;
      }
    }
  }
  return FileRoutesBase;
}

/**
 * The handlers of a file field's routes, over their work: each hands its arguments (the row's,
 * then the request's call) to `serveRoute` with its route's plan. Made per controller: route
 * metadata lives on the function objects.
 */
function fileHandlers(work: Type, plans: RoutePlans<FileActionName>): Type {
  class FileHandlers extends work {
    upload(...args: unknown[]) {
      return serveRoute(this, plans.upload, args);
    }
    addFile(...args: unknown[]) {
      return serveRoute(this, plans.addFile, args);
    }
    download(...args: unknown[]) {
      return serveRoute(this, plans.download, args);
    }
    deleteFile(...args: unknown[]) {
      return serveRoute(this, plans.deleteFile, args);
    }
  }
  return FileHandlers;
}
