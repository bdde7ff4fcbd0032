import 'reflect-metadata';
import { Controller, Delete, Get, Module, NotFoundException, Param, Put, Req, Res } from '@nestjs/common';
import { InjectModel, MongooseModule } from '@nestjs/mongoose';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import mongoose, { Schema, Types, type Model } from 'mongoose';
import { createNestApp, listen, settings } from './serve.js';

/**
 * `npm run bench:files`: what a user would write by hand with the driver's `GridFSBucket` instead of
 * `@FileProp()`, on the same collection and bucket (`boxes`, `boxes_files`): the request piped into
 * `openUploadStream`, the document's field set with one `findOneAndUpdate`, the download piped from
 * `openDownloadStream` with its Content-Type and Content-Length. No size limit, no sniffing, no hash.
 */
interface StoredRef {
  _id: Types.ObjectId;
  name: string;
  contentType: string;
  size: number;
  uploadedAt: Date;
}

const boxSchema = new Schema(
  {
    name: String,
    file: new Schema<StoredRef>({ _id: Schema.Types.ObjectId, name: String, contentType: String, size: Number, uploadedAt: Date }, { versionKey: false }),
  },
  { collection: 'boxes' },
);

/** Express's request, or Fastify's (whose Node request is `raw`). */
type AnyRequest = IncomingMessage & { raw?: IncomingMessage };
/** Express's response, or Fastify's reply. */
type AnyResponse = ServerResponse | { raw: ServerResponse; header(name: string, value: string): unknown; send(body: unknown): unknown };

@Controller('hand')
class HandFilesController {
  private readonly bucket: mongoose.mongo.GridFSBucket;

  constructor(@InjectModel('Box') private readonly boxes: Model<{ name?: string; file?: StoredRef }>) {
    this.bucket = new mongoose.mongo.GridFSBucket(boxes.db.db!, { bucketName: 'boxes_files' });
  }

  @Put(':id')
  async upload(@Param('id') id: string, @Req() request: AnyRequest) {
    const contentType = String(request.headers['content-type'] ?? 'application/octet-stream');
    const upload = this.bucket.openUploadStream('file', { metadata: { contentType } });
    await pipeline(request.raw ?? request, upload);
    const file: StoredRef = { _id: upload.id as Types.ObjectId, name: 'file', contentType, size: upload.length, uploadedAt: upload.gridFSFile!.uploadDate };
    const doc = await this.boxes.findOneAndUpdate({ _id: id }, { $set: { file } }, { returnDocument: 'after' }).lean();
    if (!doc) {
      await this.bucket.delete(file._id);
      throw new NotFoundException();
    }
    return doc;
  }

  @Get(':id')
  async download(@Param('id') id: string, @Res() response: AnyResponse) {
    const doc = await this.boxes.findById(id).lean();
    if (!doc?.file) throw new NotFoundException();
    const headers = { 'Content-Type': doc.file.contentType, 'Content-Length': String(doc.file.size) };
    const stream = this.bucket.openDownloadStream(doc.file._id);
    if ('raw' in response) {
      for (const [name, value] of Object.entries(headers)) response.header(name, value);
      response.send(stream);
      return;
    }
    for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
    await pipeline(stream, response).catch(() => response.destroy());
  }

  @Delete(':id')
  async remove(@Param('id') id: string) {
    const doc = await this.boxes.findOneAndUpdate({ _id: id }, { $unset: { file: 1 } }).lean();
    if (!doc?.file) throw new NotFoundException();
    await this.bucket.delete(doc.file._id);
    return { ok: true };
  }
}

@Module({
  imports: [MongooseModule.forRoot(settings.uri, { dbName: settings.dbName }), MongooseModule.forFeature([{ name: 'Box', schema: boxSchema }])],
  controllers: [HandFilesController],
})
class HandFilesModule {}

const app = await createNestApp(HandFilesModule);
if (settings.adapter === 'fastify') {
  // Fastify refuses a body it has no parser for (415): this one leaves it unread, for the handler to stream.
  const fastify = app.getHttpAdapter().getInstance() as {
    addContentTypeParser(types: string[], parser: (request: unknown, payload: unknown, done: (error: null) => void) => void): void;
  };
  fastify.addContentTypeParser(['image/png', 'application/octet-stream'], (_request, _payload, done) => done(null));
}
await listen(app);
