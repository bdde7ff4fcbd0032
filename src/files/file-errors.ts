import type { ErrorCode } from '../errors/error-codes.js';
import { ModelRoutesException } from '../errors/model-routes.exception.js';

/** A failure of an uploaded or stored file: `Company.logo: <message>`, with the detail at `file`. */
export function fileError(code: ErrorCode, where: string, message: string, headers?: Record<string, string>): ModelRoutesException {
  return new ModelRoutesException(code, `${where}: ${message}`, [{ path: 'file', message }], headers);
}

/** 413, closing the connection: the client may still be sending the rest, which is never read. */
export function fileTooLarge(where: string, maxSize: number): ModelRoutesException {
  return fileError('MR_PAYLOAD_TOO_LARGE', where, `the file is larger than ${maxSize} bytes`, { Connection: 'close' });
}

/** 409: the gallery holds `maxFiles` files already; nothing is stored. */
export function galleryFull(where: string, maxFiles: number): ModelRoutesException {
  return fileError('MR_GALLERY_FULL', where, `the gallery holds its largest number of files, ${maxFiles} (maxFiles): delete one before adding another`);
}
