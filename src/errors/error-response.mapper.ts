import { HttpException } from '@nestjs/common';
import { errorBody, type ErrorDetail, type ErrorResponseBody } from './error-body.util.js';
import { ERROR_CODES, type ErrorCode } from './error-codes.js';
import { ModelRoutesException } from './model-routes.exception.js';

export type { ErrorResponseBody };

/** Whether the mapper could explain the failure, or it is an unexpected one to log. */
export interface MappedError {
  body: ErrorResponseBody;
  unexpected: boolean;
}

const CODE_BY_STATUS: Partial<Record<number, ErrorCode>> = {
  400: 'MR_BAD_REQUEST',
  401: 'MR_UNAUTHORIZED',
  403: 'MR_FORBIDDEN',
  404: 'MR_NOT_FOUND',
  405: 'MR_METHOD_NOT_ALLOWED',
  413: 'MR_PAYLOAD_TOO_LARGE',
  415: 'MR_UNSUPPORTED_MEDIA_TYPE',
  500: 'MR_INTERNAL',
};

/**
 * Driver and Mongoose errors that mean "the database cannot be reached right now". Among them, what
 * a server that falls silent produces: the pool cleared and the requests in flight on it interrupted
 * when the driver's monitor times out (`PoolClearedOnNetworkError`, whose name lacks the `Mongo`
 * prefix), a request waiting longer than `waitQueueTimeoutMS` for a connection of a pool the
 * silent server holds busy, a pool or server closed under a request.
 */
const UNAVAILABLE = new Set([
  'MongoServerSelectionError',
  'MongooseServerSelectionError',
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoTopologyClosedError',
  'MongoNotConnectedError',
  'MongoPoolClearedError',
  'PoolClearedOnNetworkError',
  'MongoPoolClosedError',
  'MongoServerClosedError',
  'MongoWaitQueueTimeoutError',
  'MongoClientClosedError',
]);
/** How deep the `cause`s of an error are searched for one that says the database is unavailable. */
const CAUSE_DEPTH = 5;

/**
 * MongoDB server codes that mean "this server cannot serve you now, another (or the same, soon)
 * will": ShutdownInProgress (91), InterruptedAtShutdown (11600), InterruptedDueToReplStateChange
 * (11602), PrimarySteppedDown (189), NotWritablePrimary (10107), NotPrimaryNoSecondaryOk (13435),
 * NotPrimaryOrSecondary (13436). The driver retries some of them once; what is left is a 503.
 */
const UNAVAILABLE_SERVER_CODES = new Set([91, 11600, 11602, 189, 10107, 13435, 13436]);
/** Node's socket errors, which the driver may throw as they are when a server goes away mid-request. */
const SOCKET_ERROR_CODES = new Set(['EPIPE', 'ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'ECONNABORTED', 'EHOSTUNREACH', 'ENETUNREACH']);

/** MongoDB server codes that mean a value sent is unusable: BadValue, FailedToParse, bad regex. */
const BAD_QUERY_SERVER_CODES = new Set([2, 9, 51091]);
/** MongoDB's NotImplemented: a compatible engine (FerretDB v1) lacks a feature, e.g. `$options: 'x'`. */
const NOT_IMPLEMENTED = 238;
/** MongoDB's MaxTimeMSExpired: the server gave up on an operation after its `maxTimeMS`. */
const MAX_TIME_MS_EXPIRED = 50;

/**
 * Turns anything thrown while serving a generated route into the one error shape.
 * Never copies a stack or a driver message into the body of a 5xx.
 */
export function mapError(error: unknown): MappedError {
  if (error instanceof ModelRoutesException) return known(error.code, error.message, error.details);
  if (error instanceof HttpException) return fromHttpException(error);
  const { name, code, message } = (error ?? {}) as { name?: string; code?: unknown; message?: string };
  if (name === 'ValidationError') return fromValidationError(error as MongooseValidationError);
  if (name === 'CastError') {
    const cast = error as { path?: string; value?: unknown; kind?: string };
    return known('MR_INVALID_VALUE', `Value ${describe(cast.value)} is not a valid ${cast.kind ?? 'value'} for '${cast.path}'`, [
      { path: cast.path ?? '', message: `cannot be converted to ${cast.kind ?? 'its type'}` },
    ]);
  }
  if (name === 'StrictModeError' || name === 'StrictPopulateError') {
    return known('MR_INVALID_QUERY', 'The query names a field that is not in the schema');
  }
  if (
    code === 11000 ||
    code === 11001 ||
    (name === 'MongoServerError' && /UNIQUE constraint failed|duplicate key value violates unique constraint/.test(message ?? ''))
  ) {
    // The repository names the field for its own writes; this is custom code's (or FerretDB's update) duplicate.
    return fromDuplicateKey(error as { keyValue?: Record<string, unknown> });
  }
  if ((name === 'MongoServerError' && code === MAX_TIME_MS_EXPIRED) || (name === 'MongoOperationTimeoutError' && causes(error).some(isMaxTimeExpired))) {
    // With the driver's `timeoutMS`, the server's MaxTimeMSExpired arrives as the cause of a MongoOperationTimeoutError.
    return known('MR_QUERY_TIMEOUT', 'The database gave up on this query after its time limit; narrow the query');
  }
  if (name === 'MongoServerError' && BAD_QUERY_SERVER_CODES.has(code as number)) {
    // E.g. a $regex pattern MongoDB cannot compile, or a number (1e400 parses as Infinity) it refuses.
    return known('MR_INVALID_VALUE', 'The database refused a value of this request as invalid (a $regex pattern or a number)');
  }
  if (name === 'MongoServerError' && code === NOT_IMPLEMENTED) {
    return known('MR_UNSUPPORTED_QUERY', 'The database server does not implement a feature this query uses');
  }
  // Mongoose's cast of an operator on a field of the wrong type: "Can't use $regex with Number.",
  // or just "Can't use $regex" for an ObjectId.
  const misuse = /^Can't use (\$[a-zA-Z]+)(?: with ([A-Za-z]+))?\.?$/.exec(message ?? '');
  if (misuse) {
    const field = misuse[2] ? `a field of type ${misuse[2]}` : 'this field';
    return known('MR_INVALID_QUERY', `Operator ${misuse[1]} cannot be used on ${field}`);
  }
  // An operation of the driver's `timeoutMS` that ran out otherwise (selecting a server, waiting for a
  // connection, on a silent socket), and any error that carries an unavailable database as its cause.
  if (name === 'MongoOperationTimeoutError' || causes(error).some(isUnavailable)) {
    return known('MR_DATABASE_UNAVAILABLE', 'The database is unavailable; try again later');
  }
  return { body: errorBody('MR_INTERNAL', 500, 'Internal server error'), unexpected: true };
}

/** Whether a failure is answered 503 `MR_DATABASE_UNAVAILABLE`: the database cannot be reached, or did not answer in time. */
export function isDatabaseUnavailable(error: unknown): boolean {
  return mapError(error).body.code === 'MR_DATABASE_UNAVAILABLE';
}

/** Whether an error itself says the database cannot serve now (its `cause`s aside). */
function isUnavailable(error: unknown): boolean {
  const { name, code, message } = (error ?? {}) as { name?: string; code?: unknown; message?: string };
  return (
    (name !== undefined && UNAVAILABLE.has(name)) ||
    (name === 'MongooseError' && /buffering timed out/.test(message ?? '')) ||
    (name === 'MongoServerError' && UNAVAILABLE_SERVER_CODES.has(code as number)) ||
    (typeof code === 'string' && SOCKET_ERROR_CODES.has(code))
  );
}

function isMaxTimeExpired(error: unknown): boolean {
  const { name, code } = (error ?? {}) as { name?: string; code?: unknown };
  return name === 'MongoServerError' && code === MAX_TIME_MS_EXPIRED;
}

/** The error and the chain of its `cause`s, at most `CAUSE_DEPTH` deep. */
function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let current = error; current !== undefined && current !== null && chain.length <= CAUSE_DEPTH; current = (current as { cause?: unknown }).cause) {
    chain.push(current);
  }
  return chain;
}

interface MongooseValidationError {
  errors: Record<string, { path?: string; message: string; name?: string; kind?: string; value?: unknown }>;
}

function fromValidationError(error: MongooseValidationError): MappedError {
  // A cast failure's own message names the model; say what the client needs instead.
  // The key is the full path (`vaccinations.0.name`); an item below a sub-document names only its own (`name`).
  const details = Object.entries(error.errors ?? {}).map(([path, item]) => ({
    path: path || item.path || '',
    message:
      item.name === 'CastError'
        ? `Value ${describe(item.value)} cannot be converted to ${item.kind ?? 'its type'}`
        : // `""` on a required string: in the words of the library's own check of a missing value.
          item.kind === 'required'
          ? `${(path || item.path || '').split('.').pop()} is required`
          : item.message,
  }));
  const fields = details.map((detail) => detail.path).join(', ');
  return known('MR_VALIDATION_FAILED', `Validation failed for ${fields || 'the document'}`, details);
}

function fromDuplicateKey(error: { keyValue?: Record<string, unknown> }): MappedError {
  const fields = Object.keys(error.keyValue ?? {});
  // MongoDB names the fields in keyValue; FerretDB v1 does not, so the message stays generic there.
  const message = fields.length
    ? `A document with this ${fields.join(', ')} already exists`
    : 'A document with the same value of a unique field already exists';
  return known('MR_DUPLICATE_KEY', message, fields.length ? fields.map((path) => ({ path, message: 'must be unique' })) : undefined);
}

function fromHttpException(error: HttpException): MappedError {
  const status = error.getStatus();
  // Express's body parser, as mapped by Nest: the SyntaxError of malformed JSON.
  if (status === 400 && error.cause instanceof SyntaxError) {
    // The parser also refuses valid JSON that is not an object or array (`"text"`, `42`, `null`).
    return isJson((error.cause as { body?: unknown }).body)
      ? known('MR_INVALID_BODY', 'The request body must be a JSON object', [{ path: 'body', message: 'The request body must be a JSON object' }])
      : known('MR_INVALID_JSON', 'The request body is not valid JSON');
  }
  // Fastify's JSON parser, as mapped by Nest's FastifyAdapter (the FastifyError is the cause).
  const fastifyCode = (error.cause as { code?: unknown } | undefined)?.code;
  if (fastifyCode === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    // Its parser also refuses `__proto__` and `constructor.prototype` keys, with the same error.
    return known('MR_INVALID_JSON', 'The request body is not valid JSON (or holds a __proto__ or constructor.prototype key)');
  }
  if (fastifyCode === 'FST_ERR_CTP_EMPTY_JSON_BODY') {
    // Fastify refuses it on every route, those that read no body too (a DELETE sent with a habitual JSON Content-Type): say what to change.
    const message = 'The request says its body is JSON (Content-Type: application/json) but has none: send a JSON object, or no Content-Type';
    return known('MR_INVALID_BODY', message, [{ path: 'body', message }]);
  }
  const response = error.getResponse();
  const raw = typeof response === 'string' ? response : (response as { message?: unknown }).message;
  // A list of messages on a 400 is what ValidationPipe throws: one detail per failed constraint;
  // with `errorFormat: 'grouped'`, the messages of each property under its path.
  if (status === 400 && Array.isArray(raw) && raw.length > 0)
    return fromValidationMessages(raw.map((text) => ({ path: pathOfMessage(String(text)), message: String(text) })));
  if (status === 400 && isGroupedMessages(raw)) {
    return fromValidationMessages(Object.entries(raw).flatMap(([path, messages]) => messages.map((message) => ({ path, message: String(message) }))));
  }
  // The body parser's own 415 (a charset it cannot decode), in the words of the library's.
  if (status === 415) {
    const text = `The request body must be JSON in UTF-8 (Content-Type: application/json): ${typeof raw === 'string' ? raw : error.message}`;
    return known('MR_UNSUPPORTED_MEDIA_TYPE', text, [{ path: 'body', message: text }]);
  }
  const message = typeof raw === 'string' ? raw : error.message;
  // Nest's router answers an unmatched method and path with NotFoundException('Cannot GET /x').
  const code = status === 404 && /^Cannot [A-Z]+ \//.test(message) ? 'MR_ROUTE_NOT_FOUND' : (CODE_BY_STATUS[status] ?? 'MR_HTTP_ERROR');
  if (status >= 500) {
    // Whatever user code put in a 5xx stays in the server log.
    return { body: errorBody(code, status, status === 503 ? 'Service unavailable' : 'Internal server error'), unexpected: true };
  }
  return { body: errorBody(code, status, message), unexpected: false };
}

/**
 * ValidationPipe's messages name the property first (`address.city must be a string`, with the
 * parent path prepended for nested objects), or after a fixed phrase that the parent path precedes
 * too (`property x should not exist`, `items.0.property x should not exist`, `each value in tags
 * must be...`): that property is the detail's path.
 */
function pathOfMessage(text: string): string {
  const match = MESSAGE_PATH.exec(text);
  return match ? match[1] + match[2] : 'body';
}

/** A message's parent path, the fixed phrase if any, then the property: one regular expression, written in three parts. */
const MESSAGE_PATH = new RegExp(
  /^((?:[\w$]+\.)*)/.source +
    /(?:property |each value in |nested property |an instance of \S+ has failed the validation:\s*- property )?/.source +
    /([A-Za-z_$][\w$]*(?:\.[\w$]+)*)\b/.source,
);

/** `{ 'address.city': ['must be a string'] }`: the messages of ValidationPipe's `errorFormat: 'grouped'`, by path. */
function isGroupedMessages(raw: unknown): raw is Record<string, unknown[]> {
  return typeof raw === 'object' && raw !== null && !Array.isArray(raw) && Object.keys(raw).length > 0 && Object.values(raw).every(Array.isArray);
}

function fromValidationMessages(details: ErrorDetail[]): MappedError {
  const messages = details.map((detail) => detail.message);
  const summary = messages.length === 1 ? messages[0] : `${messages.length} errors: ${messages.join('; ')}`;
  return known('MR_VALIDATION_FAILED', `Validation failed: ${summary}`, details);
}

/**
 * A refusal of one item of a batch (an import's row, a bulk change's document) as its report tells
 * it: the code, message and details a 4xx `HttpException` (the library's, or one your hook threw)
 * would answer alone; `undefined` for anything else, which ends the batch.
 */
export function itemRefusal(error: unknown): { code: string; message: string; details?: ErrorDetail[] } | undefined {
  if (!(error instanceof HttpException) || error.getStatus() >= 500) return undefined;
  const { code, message, details } = mapError(error).body;
  return { code, message, ...(details && { details }) };
}

/** A path that the route table serves, with a method it does not serve. */
export function methodNotAllowed(method: string, allowed: readonly string[]): MappedError {
  return known('MR_METHOD_NOT_ALLOWED', `Method ${method} is not allowed here; use ${allowed.join(', ')}`);
}

function known(code: ErrorCode, message: string, details?: ErrorDetail[]): MappedError {
  return { body: errorBody(code, ERROR_CODES[code].status, message, details), unexpected: false };
}

function isJson(text: unknown): boolean {
  if (typeof text !== 'string') return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function describe(value: unknown): string {
  const text = typeof value === 'string' ? `"${value}"` : (JSON.stringify(value) ?? String(value));
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
