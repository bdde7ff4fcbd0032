/**
 * What deleting a document does to the documents whose reference field names it, declared per
 * field next to its `ref`: `@Prop({ type: Types.ObjectId, ref: 'Entrepreneur', onDelete: 'restrict' })`.
 *
 * - `'ignore'` (the default): nothing; the reference dangles (its routes answer `MR_REFERENCE_BROKEN`).
 * - `'restrict'`: the delete is refused with a 409 `MR_REFERENCED` while any document references it.
 * - `'nullify'`: the field is set to `null` (a single reference that is not `required`).
 * - `'pull'`: the identifier is removed from the array (an array of references).
 *
 * `nullify` and `pull` increment the version key of each document they change (its `ETag` changes).
 * The rules apply to deletes made through the library (`DELETE /user/:user_id`,
 * `ModelRepository.delete()`), not to `Model.deleteOne()` and other Mongoose calls.
 *
 * @example
 * ```ts
 * @Prop({ type: Types.ObjectId, ref: 'Entrepreneur', onDelete: 'restrict' }) owner?: Types.ObjectId;
 * @Prop({ type: [{ type: Types.ObjectId, ref: 'Entrepreneur' }], onDelete: 'pull' }) members?: Types.ObjectId[];
 * ```
 *
 * @publicApi
 */
export type OnDelete = 'ignore' | 'restrict' | 'nullify' | 'pull';
