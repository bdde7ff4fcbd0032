import type { Model } from 'mongoose';
import { DocumentHistory } from './document-history.js';
import type { StagedWrite, StoredWrite, WriteRecord, WriteStage } from './rule-stage.js';

/**
 * History (`@GeneratedResource({ history })`): every stored write's state, who wrote it (the
 * resource's `actor` of the call's request), through which route, and what changed; recorded
 * before the hooks' `after` runs, so that a failing after-hook still leaves the write in the history.
 */
export class HistoryStage implements WriteStage<unknown> {
  readonly keepsState = true;
  readonly versions: DocumentHistory;

  constructor(
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a model of any schema: Mongoose has no narrower type that every model fits
    model: Model<any>,
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the request of Express or Fastify, typed by the application's own callback
    private readonly options: { keep: number; actor?: (request: any) => string | undefined },
    versionKey: string,
  ) {
    this.versions = new DocumentHistory(model, options.keep, versionKey);
  }

  applies(): boolean {
    return true;
  }

  async after({ call, operation }: StagedWrite, { changed }: StoredWrite<unknown>, record: WriteRecord | undefined): Promise<void> {
    if (!record?.state) return;
    const by = call.request && this.options.actor ? this.options.actor(call.request) : undefined;
    await this.versions.record(record as WriteRecord & { state: Record<string, unknown> }, {
      operation,
      changed,
      ...(by !== undefined && { by: String(by) }),
      ...(call.route !== undefined && { route: call.route }),
    });
  }
}
