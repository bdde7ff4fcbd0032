/** `nestjs-model-routes/back-office`: the opt-in admin app, loaded only by apps that import it. */
export { BackOfficeModule, type BackOfficeModuleAsyncOptions } from './back-office.module.js';
export type { BackOfficeExtras, BackOfficeOptions, BackOfficeSettings, BackOfficeSettingsFactory } from './back-office-options.interface.js';
export type { BackOfficeMetadata, FieldMetadata, FieldType, FileRoute, ReferenceRoute, ResourceMetadata, ResourceRoute } from './app/metadata.js';
