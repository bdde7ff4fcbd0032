import type { Test } from 'supertest';

/** A request whose answer's body is read whole as bytes (`response.body` a Buffer), whatever its type: a download, an XLSX file. */
export function asBytes<R extends Test>(request: R): R {
  return request.buffer(true).parse((res, done) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('end', () => done(null, Buffer.concat(chunks)));
  }) as R;
}
