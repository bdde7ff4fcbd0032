import type { Connection } from 'mongoose';
import type { Response } from 'supertest';
import { changedCollections, observe } from './db-snapshot.js';
import { expectError } from './expect-error.js';

/** The answer a refused request must get: the one error shape with this status and code. */
export interface Refusal {
  status: number;
  code: string;
  /** The whole `details` array it must carry (asymmetric matchers allowed); left out, any. */
  details?: unknown;
}

/**
 * Sends a request that must be refused and asserts both halves of "refused, and nothing changed":
 * the answer is the one error shape with `expected.status` and `expected.code` (and
 * `expected.details`, when given), and every collection of the database (raw, hidden fields
 * included) is the same after it as before. A change is named by its collections first, then
 * shown document by document; the data is put back either way, so one failure cannot spoil the
 * next cases. Returns the response, for what else a test wants to say of it.
 *
 * @example
 * ```ts
 * await expectRefusedUnchanged(t.connection, () => t.http().patch(`/pet/${id}`).send({ chip: 'x' }), {
 *   status: 400,
 *   code: 'MR_VALIDATION_FAILED',
 *   details: [{ path: 'chip', message: expect.any(String) }],
 * });
 * ```
 */
export async function expectRefusedUnchanged(connection: Connection, send: () => PromiseLike<unknown>, expected: Refusal): Promise<Response> {
  const { response: sent, before, after } = await observe(connection, send);
  const response = sent as Response;
  // Status, code and data first, in one comparison, so a failure shows all three.
  expect({ status: response.status, code: response.body?.code, changedCollections: changedCollections(before, after) }).toEqual({
    status: expected.status,
    code: expected.code,
    changedCollections: [],
  });
  expectError(response, expected.status, expected.code);
  if ('details' in expected) expect(response.body.details).toEqual(expected.details);
  expect(after.parts).toEqual(before.parts);
  return response;
}
