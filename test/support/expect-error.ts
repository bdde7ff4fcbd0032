import type { Response } from 'supertest';

/** Asserts the one error shape of DESIGN.md section 3, with this status and code. */
export function expectError(response: Response, status: number, code: string): void {
  expect({ status: response.status, code: response.body?.code }).toEqual({ status, code });
  expect(response.body).toEqual({
    statusCode: status,
    error: expect.any(String),
    code,
    message: expect.any(String),
    ...(response.body.details ? { details: expect.any(Array) } : {}),
  });
  expect(JSON.stringify(response.body)).not.toMatch(/\bat .+\.(js|ts):\d+/);
}
