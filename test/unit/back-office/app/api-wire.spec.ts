import { ApiError, apiUrl, describeError, errorOf } from '../../../../src/back-office/app/api-wire.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function apiWireSpec(): void {
  describe("the back office app's wire: URLs and the error shape", () => {
    it('puts each segment under the API base, encoded', () => {
      expect(apiUrl('', ['company', 'a1'])).toBe('/company/a1');
      expect(apiUrl('/api', ['user', 'x/y', 'companies', 'owner'])).toBe('/api/user/x%2Fy/companies/owner');
      expect(apiUrl('', ['book', 'l’été ?#%'])).toBe('/book/l%E2%80%99%C3%A9t%C3%A9%20%3F%23%25');
      expect(apiUrl('', ['..'])).toBe('/..');
    });

    it("reads the library's error shape from a failed answer", async () => {
      const body = {
        statusCode: 400,
        error: 'Bad Request',
        code: 'MR_VALIDATION_FAILED',
        message: 'Validation failed',
        details: [{ path: 'niceName', message: 'niceName is required' }],
      };
      const error = await errorOf(
        new Response(JSON.stringify(body), { status: 400, statusText: 'Bad Request', headers: { 'content-type': 'application/json' } }),
      );
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ status: 400, code: 'MR_VALIDATION_FAILED', message: 'Validation failed', details: body.details });
    });

    it("reads Nest's array of messages as one, and an answer that is not the library's shape by its status", async () => {
      const nest = await errorOf(
        new Response(JSON.stringify({ statusCode: 400, message: ['a must be a string', 'b is required'], error: 'Bad Request' }), { status: 400 }),
      );
      expect(nest).toMatchObject({ status: 400, code: 'HTTP_400', message: 'a must be a string; b is required', details: [] });
      const proxy = await errorOf(new Response('<html>Bad gateway</html>', { status: 502, statusText: 'Bad Gateway' }));
      expect(proxy).toMatchObject({ status: 502, code: 'HTTP_502', message: 'Bad Gateway', details: [] });
      const empty = await errorOf(new Response(null, { status: 404, statusText: 'Not Found' }));
      expect(empty).toMatchObject({ status: 404, code: 'HTTP_404', message: 'Not Found' });
      const odd = await errorOf(new Response(JSON.stringify({ code: 'MR_X', message: 'm', details: 'not a list' }), { status: 409 }));
      expect(odd.details).toEqual([]);
    });

    it('says a request that never got an answer is unreachable (status 0)', () => {
      expect(ApiError.unreachable(new TypeError('Failed to fetch'))).toMatchObject({
        status: 0,
        code: 'NETWORK',
        message: 'The server could not be reached (Failed to fetch).',
      });
    });

    it.each<[ApiError | Error, { title: string; text: string }]>([
      [new ApiError(0, 'NETWORK', 'The server could not be reached (x).'), { title: 'Could not save', text: 'The server could not be reached (x).' }],
      [
        new ApiError(401, 'MR_UNAUTHORIZED', 'Missing key'),
        {
          title: 'Not signed in: could not save',
          text: 'This action needs credentials (401). The server said: “Missing key” Enter them (sent in the x-api-key header) and try again.',
        },
      ],
      [
        new ApiError(401, 'HTTP_401', ''),
        { title: 'Not signed in: could not save', text: 'This action needs credentials (401). Enter them (sent in the x-api-key header) and try again.' },
      ],
      [
        new ApiError(403, 'HTTP_403', 'Forbidden resource'),
        { title: 'Not allowed: could not save', text: 'Your credentials do not allow this action (403). The server said: “Forbidden resource”' },
      ],
      [new ApiError(404, 'MR_NOT_FOUND', 'Company a1 not found'), { title: 'Not found', text: 'Company a1 not found (404).' }],
      [new ApiError(404, 'HTTP_404', ''), { title: 'Not found', text: 'It does not exist (404).' }],
      [
        new ApiError(409, 'MR_REFERENCED', 'Still referenced', [{ message: 'by 2 companies' }]),
        { title: 'Could not save', text: 'Still referenced · by 2 companies' },
      ],
      [new ApiError(503, 'MR_DATABASE_UNAVAILABLE', 'Try again'), { title: 'Could not save', text: 'Try again (503 MR_DATABASE_UNAVAILABLE).' }],
      [new Error('boom'), { title: 'Could not save', text: 'boom' }],
    ])('describes %j in words', (error, expected) => {
      expect(describeError(error, 'save', 'x-api-key')).toEqual(expected);
    });
  });
}
