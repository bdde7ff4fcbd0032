import { Prop } from '@nestjs/mongoose';
import { FileRefSchema } from './file-ref.js';
import { FILE_OPTION, resolveFileOptions, type FilePropOptions } from './file-options.js';

/**
 * Declares a file field: `@FileProp() logo?: FileRef` for one file, `@FileProp() photos!: FileRef[]`
 * for a gallery. The document holds a small `FileRef` sub-document per file; the content is in
 * GridFS. A resource's file fields get routes (`PUT|GET|DELETE /company/:company_id/logo`; for a
 * gallery `POST /company/:company_id/photos` and `GET|DELETE .../photos/:file_id`). It is `@Prop()`
 * with the `FileRef` schema: the schema stays valid for models whose routes are not generated.
 * Top-level fields only.
 *
 * @example
 * ```ts
 * @FileProp({ maxSize: '2MB', accept: ['image/png', 'image/jpeg'], variants: true }) logo?: FileRef;
 * @FileProp({ maxSize: '5MB' }) photos!: FileRef[];
 * ```
 *
 * @publicApi
 */
export function FileProp(options: FilePropOptions = {}): PropertyDecorator {
  return (target, key) => {
    const gallery = Reflect.getMetadata('design:type', target, key) === Array;
    const field = String(key);
    const file = resolveFileOptions(options, field, gallery, `${target.constructor.name}.${field}`);
    // A gallery is absent until its first file, as a single file is: documents carry no empty array.
    Prop({ type: gallery ? [FileRefSchema] : FileRefSchema, ...(gallery && { default: undefined }), [FILE_OPTION]: file })(target, key);
  };
}
