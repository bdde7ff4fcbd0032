import {
  BadRequestException,
  ForbiddenException,
  HttpException,
  InternalServerErrorException,
  NotFoundException,
  PayloadTooLargeException,
  ServiceUnavailableException,
  UnauthorizedException,
} from '@nestjs/common';
import mongoose from 'mongoose';
import { ERROR_CODES } from '../../../src/errors/error-codes.js';
import { mapError, type ErrorResponseBody } from '../../../src/errors/error-response.mapper.js';
import { ModelRoutesException } from '../../../src/errors/model-routes.exception.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function errorResponseMapperSpec(): void {
  const BODY_KEYS = ['code', 'error', 'message', 'statusCode'];

  function expectShape(body: ErrorResponseBody, withDetails: boolean): void {
    expect(Object.keys(body).sort()).toEqual(withDetails ? [...BODY_KEYS, 'details'].sort() : BODY_KEYS);
    expect(typeof body.statusCode).toBe('number');
    expect(typeof body.error).toBe('string');
    expect(typeof body.message).toBe('string');
  }

  describe('mapError: ModelRoutesException', () => {
    it('keeps code, message and details, with the status of the code', () => {
      const error = ModelRoutesException.invalidQuery('query.$where', 'Operator $where is not allowed');
      const { body, unexpected } = mapError(error);
      expect(unexpected).toBe(false);
      expect(body).toStrictEqual({
        statusCode: 400,
        error: 'Bad Request',
        code: 'MR_INVALID_QUERY',
        message: 'Operator $where is not allowed',
        details: [{ path: 'query.$where', message: 'Operator $where is not allowed' }],
      });
    });

    it.each<[ConstructorParameters<typeof ModelRoutesException>[0], number, string]>([
      ['MR_INVALID_BODY', 400, 'Bad Request'],
      ['MR_NOT_FOUND', 404, 'Not Found'],
      ['MR_REFERENCE_UNSET', 404, 'Not Found'],
      ['MR_REFERENCE_BROKEN', 404, 'Not Found'],
      ['MR_DUPLICATE_KEY', 409, 'Conflict'],
      ['MR_DATABASE_UNAVAILABLE', 503, 'Service Unavailable'],
    ])('%s → %p %s, without details when there are none', (code, status, error) => {
      const { body } = mapError(new ModelRoutesException(code, 'msg'));
      expectShape(body, false);
      expect(body).toStrictEqual({ statusCode: status, error, code, message: 'msg' });
    });

    it('omits an empty details array', () => {
      expect(mapError(new ModelRoutesException('MR_INVALID_ID', 'bad id', [])).body).not.toHaveProperty('details');
    });
  });

  describe('mapError: Nest HttpException', () => {
    it('turns a list of messages (ValidationPipe) into MR_VALIDATION_FAILED, one detail per message, at the property it names', () => {
      const { body } = mapError(new BadRequestException(['a is bad', 'b is bad']));
      expect(body).toStrictEqual({
        statusCode: 400,
        error: 'Bad Request',
        code: 'MR_VALIDATION_FAILED',
        message: 'Validation failed: 2 errors: a is bad; b is bad',
        details: [
          { path: 'a', message: 'a is bad' },
          { path: 'b', message: 'b is bad' },
        ],
      });
    });

    it.each([
      ['niceName must be a string', 'niceName'],
      ['address.city must be shorter than or equal to 10 characters', 'address.city'],
      ['items.0.qty must not be less than 1', 'items.0.qty'],
      ['property isAdmin should not exist', 'isAdmin'],
      ['items.0.property isAdmin should not exist', 'items.0.isAdmin'],
      ['each value in tags must be a string', 'tags'],
      ['meta.each value in tags must be a string', 'meta.tags'],
      ['!!! nothing to name', 'body'],
    ])('reads the path of ValidationPipe message %j: %s', (message, path) => {
      expect(mapError(new BadRequestException([message])).body.details).toEqual([{ path, message }]);
    });

    it("reads ValidationPipe's errorFormat 'grouped': one detail per message, at its key", () => {
      const grouped = new BadRequestException({
        message: { 'address.city': ['city must be a string', 'city must not be empty'], name: ['name is required'] },
        error: 'Bad Request',
        statusCode: 400,
      });
      expect(mapError(grouped).body).toStrictEqual({
        statusCode: 400,
        error: 'Bad Request',
        code: 'MR_VALIDATION_FAILED',
        message: 'Validation failed: 3 errors: city must be a string; city must not be empty; name is required',
        details: [
          { path: 'address.city', message: 'city must be a string' },
          { path: 'address.city', message: 'city must not be empty' },
          { path: 'name', message: 'name is required' },
        ],
      });
    });

    it("maps the body parser's malformed JSON to MR_INVALID_JSON without echoing the parser", () => {
      const cause = new SyntaxError('Unexpected token } in JSON at position 7');
      const { body } = mapError(new BadRequestException(cause.message, { cause }));
      expect(body).toStrictEqual({ statusCode: 400, error: 'Bad Request', code: 'MR_INVALID_JSON', message: 'The request body is not valid JSON' });
    });

    it.each([
      ['FST_ERR_CTP_INVALID_JSON_BODY', 'MR_INVALID_JSON'],
      ['FST_ERR_CTP_EMPTY_JSON_BODY', 'MR_INVALID_BODY'],
    ])("maps Fastify's parser error %s, as Nest's FastifyAdapter wraps it, to %s", (fastifyCode, code) => {
      const cause = Object.assign(new Error('from Fastify'), { name: 'FastifyError', code: fastifyCode, statusCode: 400 });
      const { body, unexpected } = mapError(new HttpException(cause.message, 400, { cause }));
      expect({ statusCode: body.statusCode, code: body.code, unexpected }).toEqual({ statusCode: 400, code, unexpected: false });
      expect(body.message).not.toContain('from Fastify');
    });

    it.each<[string, HttpException, number, string, string, string]>([
      ['ForbiddenException', new ForbiddenException(), 403, 'Forbidden', 'MR_FORBIDDEN', 'Forbidden'],
      ['ForbiddenException with a message', new ForbiddenException('Admins only'), 403, 'Forbidden', 'MR_FORBIDDEN', 'Admins only'],
      ['NotFoundException from user code', new NotFoundException('No such report'), 404, 'Not Found', 'MR_NOT_FOUND', 'No such report'],
      ["the router's NotFoundException", new NotFoundException('Cannot GET /nope'), 404, 'Not Found', 'MR_ROUTE_NOT_FOUND', 'Cannot GET /nope'],
      ['UnauthorizedException', new UnauthorizedException(), 401, 'Unauthorized', 'MR_UNAUTHORIZED', 'Unauthorized'],
      ['PayloadTooLargeException', new PayloadTooLargeException('too big'), 413, 'Payload Too Large', 'MR_PAYLOAD_TOO_LARGE', 'too big'],
      ['a 418', new HttpException("I'm a teapot", 418), 418, 'I Am A Teapot', 'MR_HTTP_ERROR', "I'm a teapot"],
      ['a 429 with an object response', new HttpException({ message: 'Slow down' }, 429), 429, 'Too Many Requests', 'MR_HTTP_ERROR', 'Slow down'],
    ])('%s', (_label, exception, statusCode, error, code, message) => {
      const { body, unexpected } = mapError(exception);
      expect(unexpected).toBe(false);
      expectShape(body, false);
      expect(body).toStrictEqual({ statusCode, error, code, message });
    });

    it('hides the message of a 500 and flags it unexpected', () => {
      const { body, unexpected } = mapError(new InternalServerErrorException('db password is hunter2'));
      expect(unexpected).toBe(true);
      expect(body).toStrictEqual({ statusCode: 500, error: 'Internal Server Error', code: 'MR_INTERNAL', message: 'Internal server error' });
      expect(JSON.stringify(body)).not.toContain('hunter2');
    });

    it('hides the message of a 503 raised by user code, logs it, and does not blame the database', () => {
      const { body, unexpected } = mapError(new ServiceUnavailableException('node-3 is down'));
      expect(unexpected).toBe(true);
      expect(body).toStrictEqual({ statusCode: 503, error: 'Service Unavailable', code: 'MR_HTTP_ERROR', message: 'Service unavailable' });
      expect(JSON.stringify(body)).not.toContain('node-3');
    });
  });

  describe('mapError: Mongoose errors', () => {
    it('maps a ValidationError built by hand, with one detail per field (a required one in the words of the library)', () => {
      const error = new mongoose.Error.ValidationError();
      error.addError('email', new mongoose.Error.ValidatorError({ path: 'email', message: 'Path `email` is required.', type: 'required' }));
      error.addError('credits', new mongoose.Error.ValidatorError({ path: 'credits', message: 'Too small', type: 'min' }));
      const { body, unexpected } = mapError(error);
      expect(unexpected).toBe(false);
      expectShape(body, true);
      expect(body).toStrictEqual({
        statusCode: 400,
        error: 'Bad Request',
        code: 'MR_VALIDATION_FAILED',
        message: 'Validation failed for email, credits',
        details: [
          { path: 'email', message: 'email is required' },
          { path: 'credits', message: 'Too small' },
        ],
      });
    });

    it('maps the ValidationError of a real document validation', async () => {
      const schema = new mongoose.Schema({ name: { type: String, required: true }, age: { type: Number, min: 0 } });
      const Model = mongoose.model('ErrorMapperPerson', schema);
      const failure: unknown = await new Model({ age: -1 }).validate().then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(mongoose.Error.ValidationError);
      const { body } = mapError(failure);
      expect(body.statusCode).toBe(400);
      expect(body.code).toBe('MR_VALIDATION_FAILED');
      expect(body.details!.map((detail) => detail.path).sort()).toEqual(['age', 'name']);
      expect(body.message).toContain('name');
      expect(body.message).toContain('age');
    });

    it('maps a ValidationError without errors to a generic message', () => {
      const { body } = mapError(new mongoose.Error.ValidationError());
      expect(body).toStrictEqual({ statusCode: 400, error: 'Bad Request', code: 'MR_VALIDATION_FAILED', message: 'Validation failed for the document' });
    });

    it('maps a CastError to MR_INVALID_VALUE naming the path', () => {
      const { body, unexpected } = mapError(new mongoose.Error.CastError('Number', 'abc', 'employees'));
      expect(unexpected).toBe(false);
      expect(body).toStrictEqual({
        statusCode: 400,
        error: 'Bad Request',
        code: 'MR_INVALID_VALUE',
        message: `Value "abc" is not a valid Number for 'employees'`,
        details: [{ path: 'employees', message: 'cannot be converted to Number' }],
      });
    });

    it('shortens a long value in a CastError message', () => {
      const { body } = mapError(new mongoose.Error.CastError('ObjectId', 'x'.repeat(200), 'owner'));
      expect(body.message).toContain('...');
      expect(body.message).not.toContain('x'.repeat(61));
    });

    it('maps StrictModeError to MR_INVALID_QUERY', () => {
      expect(mapError({ name: 'StrictModeError', message: 'Path "nope" is not in schema' }).body).toStrictEqual({
        statusCode: 400,
        error: 'Bad Request',
        code: 'MR_INVALID_QUERY',
        message: 'The query names a field that is not in the schema',
      });
    });
  });

  describe('mapError: MongoDB driver errors', () => {
    it('maps a duplicate key with keyValue to 409 with details', () => {
      const { body, unexpected } = mapError({ name: 'MongoServerError', code: 11000, keyValue: { email: 'a' }, message: 'E11000 dup key: { email: "a" }' });
      expect(unexpected).toBe(false);
      expectShape(body, true);
      expect(body).toStrictEqual({
        statusCode: 409,
        error: 'Conflict',
        code: 'MR_DUPLICATE_KEY',
        message: 'A document with this email already exists',
        details: [{ path: 'email', message: 'must be unique' }],
      });
    });

    it('names every field of a compound duplicate key', () => {
      const { body } = mapError({ name: 'MongoServerError', code: 11000, keyValue: { tenant: 't', email: 'a' } });
      expect(body.details!.map((detail) => detail.path)).toEqual(['tenant', 'email']);
    });

    it.each([
      ['without keyValue', { name: 'MongoServerError', code: 11000, message: 'E11000 duplicate key error' }],
      ['with code 11001', { name: 'MongoServerError', code: 11001 }],
      ['with an empty keyValue', { name: 'MongoServerError', code: 11000, keyValue: {} }],
    ])('maps a duplicate key %s to 409 without details', (_label, error) => {
      const { body } = mapError(error);
      expectShape(body, false);
      expect(body).toStrictEqual({
        statusCode: 409,
        error: 'Conflict',
        code: 'MR_DUPLICATE_KEY',
        message: 'A document with the same value of a unique field already exists',
      });
    });

    it.each([
      'MongoServerSelectionError',
      'MongooseServerSelectionError',
      'MongoNetworkError',
      'MongoNetworkTimeoutError',
      'MongoTopologyClosedError',
      'MongoNotConnectedError',
      'MongoPoolClearedError',
    ])('maps %s to 503', (name) => {
      const { body, unexpected } = mapError({ name, message: 'connect ECONNREFUSED 10.0.0.7:27017' });
      expect(unexpected).toBe(false);
      expect(body).toStrictEqual({
        statusCode: 503,
        error: 'Service Unavailable',
        code: 'MR_DATABASE_UNAVAILABLE',
        message: 'The database is unavailable; try again later',
      });
      expect(JSON.stringify(body)).not.toContain('10.0.0.7');
    });

    it.each([91, 11600, 11602, 189, 10107, 13435, 13436])('maps a MongoServerError with code %p (a server shutting down or stepping down) to 503', (code) => {
      const { body, unexpected } = mapError({ name: 'MongoServerError', code, message: 'interrupted at shutdown' });
      expect(unexpected).toBe(false);
      expect(body.code).toBe('MR_DATABASE_UNAVAILABLE');
    });

    it.each(['EPIPE', 'ECONNRESET'])('maps a socket error %s thrown as it is (a server gone mid-request) to 503', (code) => {
      const error = Object.assign(new Error('This socket has been ended by the other party'), { code });
      const { body, unexpected } = mapError(error);
      expect(unexpected).toBe(false);
      expect(body).toStrictEqual({
        statusCode: 503,
        error: 'Service Unavailable',
        code: 'MR_DATABASE_UNAVAILABLE',
        message: 'The database is unavailable; try again later',
      });
    });

    // What a server that falls silent produces besides socket timeouts (mongodb 7 lib/cmap/errors.js, lib/error.js).
    it.each([
      [
        'PoolClearedOnNetworkError',
        "the driver's monitor timed out on the server, cleared the pool and interrupted the requests in flight on it (no Mongo prefix)",
      ],
      ['MongoPoolClosedError', 'the pool of a server closed under a request'],
      ['MongoServerClosedError', 'a request sent to a server the driver has closed'],
      ['MongoWaitQueueTimeoutError', 'a request waited longer than waitQueueTimeoutMS for a connection'],
    ])('maps %s (%s) to 503', (name) => {
      const { body, unexpected } = mapError({ name, message: 'Connection to 10.0.0.7:27017 interrupted due to server monitor timeout' });
      expect(unexpected).toBe(false);
      expect(body).toStrictEqual({
        statusCode: 503,
        error: 'Service Unavailable',
        code: 'MR_DATABASE_UNAVAILABLE',
        message: 'The database is unavailable; try again later',
      });
    });

    it("maps a MongoOperationTimeoutError (the driver's timeoutMS ran out selecting a server, waiting for a connection or on a silent socket) to 503", () => {
      const error = { name: 'MongoOperationTimeoutError', message: 'Timed out during socket read (5000ms)' };
      expect(mapError(error)).toEqual({ body: expect.objectContaining({ statusCode: 503, code: 'MR_DATABASE_UNAVAILABLE' }), unexpected: false });
    });

    it(
      "maps a MongoOperationTimeoutError whose cause is the server's MaxTimeMSExpired (what timeoutMS makes of it) to MR_QUERY_TIMEOUT, as the server's " +
        'own error',
      () => {
        const error = {
          name: 'MongoOperationTimeoutError',
          message: 'Server reported a timeout error',
          cause: { name: 'MongoServerError', code: 50, message: 'operation exceeded time limit' },
        };
        expect(mapError(error)).toEqual({ body: expect.objectContaining({ statusCode: 422, code: 'MR_QUERY_TIMEOUT' }), unexpected: false });
      },
    );

    it.each([
      [
        'a MongoError the monitor wraps a socket error in',
        { name: 'MongoError', message: 'read ECONNRESET', cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }) },
      ],
      [
        'an error of custom code whose cause is a network timeout',
        new Error('could not save', { cause: { name: 'MongoNetworkTimeoutError', message: 'connection 3 to 10.0.0.7:27017 timed out' } }),
      ],
      ['a cause two levels down', new Error('outer', { cause: new Error('middle', { cause: { name: 'MongoPoolClearedError', message: 'cleared' } }) })],
    ])('maps %s to 503 (an unavailable database found among the causes)', (_label, error) => {
      expect(mapError(error)).toEqual({ body: expect.objectContaining({ statusCode: 503, code: 'MR_DATABASE_UNAVAILABLE' }), unexpected: false });
    });

    it('leaves an error a 500 when its causes say nothing of the database, and searches at most 5 causes deep (a cycle ends)', () => {
      expect(mapError(new Error('outer', { cause: new Error('inner') })).body.code).toBe('MR_INTERNAL');
      let deep: unknown = { name: 'MongoNetworkError', message: 'too deep to be the reason' };
      for (let level = 0; level < 6; level++) deep = new Error(`level ${level}`, { cause: deep });
      expect(mapError(deep).body.code).toBe('MR_INTERNAL');
      const cycle: Error & { cause?: unknown } = new Error('its own cause');
      cycle.cause = cycle;
      expect(mapError(cycle).body.code).toBe('MR_INTERNAL');
    });

    it('leaves a MongoServerError of another code, and an error with another code, a 500', () => {
      expect(mapError({ name: 'MongoServerError', code: 1, message: 'context canceled' }).body.code).toBe('MR_INTERNAL');
      expect(mapError(Object.assign(new Error('x'), { code: 'ENOENT' })).body.code).toBe('MR_INTERNAL');
    });

    it('maps a Mongoose buffering timeout to 503', () => {
      const error = new mongoose.Error('Operation `companies.find()` buffering timed out after 10000ms');
      expect(mapError(error).body.statusCode).toBe(503);
      expect(mapError(error).body.code).toBe('MR_DATABASE_UNAVAILABLE');
    });

    it.each([2, 9, 51091])('maps a MongoServerError with code %p to MR_INVALID_VALUE', (code) => {
      const { body } = mapError({ name: 'MongoServerError', code, message: 'Regular expression is invalid: missing )' });
      expect(body).toStrictEqual({
        statusCode: 400,
        error: 'Bad Request',
        code: 'MR_INVALID_VALUE',
        message: 'The database refused a value of this request as invalid (a $regex pattern or a number)',
      });
    });
  });

  describe('mapError: unexpected errors', () => {
    it('maps a plain Error to a generic 500 without its message, flagged unexpected', () => {
      const { body, unexpected } = mapError(new Error('secret driver text'));
      expect(unexpected).toBe(true);
      expectShape(body, false);
      expect(body).toStrictEqual({ statusCode: 500, error: 'Internal Server Error', code: 'MR_INTERNAL', message: 'Internal server error' });
      expect(JSON.stringify(body)).not.toContain('secret driver text');
    });

    it.each([
      ['a MongoServerError with another code', { name: 'MongoServerError', code: 13, message: 'secret driver text' }],
      ['a MongooseError without buffering timeout', new mongoose.Error('secret driver text')],
      ['a TypeError', new TypeError('secret driver text')],
      ['a thrown string', 'secret driver text'],
      ['null', null],
      ['undefined', undefined],
    ])('maps %s to a generic 500', (_label, error) => {
      const { body, unexpected } = mapError(error);
      expect(unexpected).toBe(true);
      expect(body).toStrictEqual({ statusCode: 500, error: 'Internal Server Error', code: 'MR_INTERNAL', message: 'Internal server error' });
    });

    it('uses the documented status of every code it returns', () => {
      for (const error of [new Error('x'), { code: 11000 }, { name: 'MongoNetworkError' }, new mongoose.Error.CastError('Number', 'a', 'n')]) {
        const { body } = mapError(error);
        expect(body.statusCode).toBe(ERROR_CODES[body.code].status);
      }
    });
  });

  describe('mapError: queries the database or Mongoose cannot run', () => {
    it.each([
      ["Can't use $regex with Number.", 'Operator $regex cannot be used on a field of type Number'],
      ["Can't use $size", 'Operator $size cannot be used on this field'],
    ])('maps Mongoose\'s "%s" to MR_INVALID_QUERY', (text, message) => {
      const error = Object.assign(new Error(text), { name: 'MongooseError' });
      expect(mapError(error)).toStrictEqual({
        body: { statusCode: 400, error: 'Bad Request', code: 'MR_INVALID_QUERY', message },
        unexpected: false,
      });
    });

    it('maps a server NotImplemented (238) to MR_UNSUPPORTED_QUERY', () => {
      const error = Object.assign(new Error("option 'x' not implemented"), { name: 'MongoServerError', code: 238 });
      const { body, unexpected } = mapError(error);
      expect(unexpected).toBe(false);
      expect(body).toStrictEqual({
        statusCode: 400,
        error: 'Bad Request',
        code: 'MR_UNSUPPORTED_QUERY',
        message: 'The database server does not implement a feature this query uses',
      });
    });

    it.each(['"text"', '42', 'null', 'true'])("maps the body parser's refusal of valid JSON %s to MR_INVALID_BODY", (raw) => {
      const cause = Object.assign(new SyntaxError('Unexpected token'), { body: raw });
      expect(mapError(new BadRequestException(cause.message, { cause })).body.code).toBe('MR_INVALID_BODY');
    });
  });
}
