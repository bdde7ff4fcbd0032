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
  expectNoLeak(response);
}

/** No answer carries a stack trace or a driver's words. */
export function expectNoLeak(response: Response): void {
  const text = response.text ?? JSON.stringify(response.body);
  expect(text).not.toMatch(/\bat .+\.(js|ts):\d+/);
  expect(text).not.toMatch(/MongoServerError|E11000/);
  expect(text).not.toMatch(/mongoose/i);
  // The image library's words (issue 23, item 9).
  expect(text).not.toMatch(/vips|Input image exceeds|pixel limit/i);
}

/**
 * Asserts that no route serves this request, and that the answer is Nest's own 404: by default
 * (`globalErrorFilter: false`) the library leaves a path outside its route table to the app.
 */
export function expectNoRoute(response: Response): void {
  expect({ status: response.status, body: response.body }).toEqual({
    status: 404,
    body: { statusCode: 404, error: 'Not Found', message: expect.stringMatching(/^Cannot [A-Z]+ \//) },
  });
}
