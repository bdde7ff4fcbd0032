import { ModelRoutesException } from '../errors/model-routes.exception.js';
import type { CountPolicy } from '../metadata/count-policies.js';

/** The values `Prefer: count=` takes, and the policy each one asks for (PostgREST's `planned` is our `estimated`). */
const PREFERRED: Readonly<Record<string, CountPolicy>> = Object.freeze({ exact: 'exact', estimated: 'estimated', planned: 'estimated', none: 'none' });

/**
 * The count policy a request's `Prefer` header asks for (RFC 7240: preferences separated by
 * commas, each `name[=value]` with `;` parameters, names case-insensitive, the first of a repeated
 * one taken, the others ignored), or `undefined` when it asks for none. A `count` of any other
 * value is a 400 `MR_INVALID_QUERY` naming `Prefer`: a client that asks for a count it would not
 * get is told so, never answered with another one.
 */
export function countPreferenceOf(header: string | string[] | undefined): CountPolicy | undefined {
  if (header === undefined) return undefined;
  for (const preference of (Array.isArray(header) ? header.join(',') : header).split(',')) {
    const [token = ''] = preference.split(';');
    const equals = token.indexOf('=');
    const name = (equals < 0 ? token : token.slice(0, equals)).trim().toLowerCase();
    if (name !== 'count') continue;
    const value = equals < 0 ? '' : unquoted(token.slice(equals + 1).trim()).toLowerCase();
    const policy = Object.hasOwn(PREFERRED, value) ? PREFERRED[value] : undefined;
    if (!policy) {
      throw ModelRoutesException.invalidQuery(
        'Prefer',
        `Prefer: count=${value.slice(0, 32)} is not a count this API gives; use count=exact, count=estimated (or planned) or count=none`,
      );
    }
    return policy;
  }
  return undefined;
}

function unquoted(value: string): string {
  return value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
}
