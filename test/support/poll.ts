/**
 * Sends `request` until `done(response)` holds or `withinMs` has passed, 250 ms apart, and returns
 * the last response: for waiting on a recovery (an engine started again) without a fixed sleep.
 */
export async function pollUntil<R>(request: () => PromiseLike<R>, done: (response: R) => boolean, withinMs = 20000): Promise<R> {
  const deadline = Date.now() + withinMs;
  let response = await request();
  while (!done(response) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    response = await request();
  }
  return response;
}
