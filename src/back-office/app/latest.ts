/**
 * "The latest request wins": how every view of the app loads without racing itself. A pure module
 * (no DOM), unit-tested without a browser.
 */

/** What to do with a load's outcome, if it is still the latest when it settles. */
export interface LoadHandlers<T> {
  done(value: T): void | Promise<void>;
  failed(error: unknown): void | Promise<void>;
}

/**
 * Runs loads as the user asks for them; only the latest one's outcome is used. One per thing that
 * loads (a picker's list, the page shown, a document's reload), instead of a counter of its own.
 */
export class Latest {
  private turn = 0;
  private waiting = false;

  /**
   * Starts `load`, making every load started before it stale. When it settles, `done` gets its
   * value or `failed` its error, but only if no later load was started and `cancel` was not
   * called meanwhile: a stale load's value AND its failure are dropped. The answered promise
   * settles once the outcome was handled (a handler's promise awaited) or dropped; it rejects
   * only if a handler does.
   */
  async run<T>(load: () => Promise<T>, handlers: LoadHandlers<T>): Promise<void> {
    const mine = ++this.turn;
    this.waiting = true;
    let outcome: { ok: true; value: T } | { ok: false; error: unknown };
    try {
      outcome = { ok: true, value: await load() };
    } catch (error) {
      outcome = { ok: false, error };
    }
    if (mine !== this.turn) return;
    this.waiting = false;
    if (outcome.ok) await handlers.done(outcome.value);
    else await handlers.failed(outcome.error);
  }

  /** Makes every load on its way stale (the user chose, or moved on): none of their outcomes will be used. */
  cancel(): void {
    this.turn += 1;
    this.waiting = false;
  }

  /** Whether the latest load is still on its way (a stale one still on its way does not count). */
  get pending(): boolean {
    return this.waiting;
  }
}

/** A fresh "latest request wins" runner. */
export function latest(): Latest {
  return new Latest();
}
