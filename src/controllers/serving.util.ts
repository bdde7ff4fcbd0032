import { currentCall } from '../call/route-call.js';
import type { ModelRepository } from '../repository/model-repository.js';

/**
 * `repository`, serving the call of the generated route in progress: its context handed explicitly
 * (`repository.in(call.context)`); as it is outside one (a handler called by your code). Where the
 * generated handlers take their repositories: the controller boundary is the last place a request
 * is looked up.
 */
export function serving<R extends ModelRepository<any>>(repository: R): R {
  const call = currentCall();
  return call ? repository.in(call.context) : repository;
}
