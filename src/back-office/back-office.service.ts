import type { ApplicationConfig } from '@nestjs/core';
import { ModelRoutesConfigError } from '../errors/model-routes-config.error.js';
import { ModelRoutesException, NotModifiedException } from '../errors/model-routes.exception.js';
import { matchesWeakly, parseEntityTags } from '../concurrency/entity-tag.js';
import type { ModelRoutesExplorer } from '../explorer/model-routes.explorer.js';
import type { BackOfficeMetadata } from './app/metadata.js';
import type { BackOfficeAsset } from './back-office-assets.js';
import { servingOf } from '../versioning/served-routes.js';
import { backOfficeMetadata, normalizePrefix } from './back-office-metadata.js';
import type { ResolvedBackOfficeOptions } from './back-office-options.interface.js';
import { backOfficePage } from './back-office-page.js';

const MAX_CACHED_GROUP_SETS = 256;

/** What the back office's routes answer: its page, its files, and the app's metadata, built once. */
export class BackOfficeService {
  /** The metadata, by the groups of the requests it was built for (one entry when the app has no `serializationGroups`). */
  private readonly built = new Map<string, BackOfficeMetadata>();
  private readonly scripts: string[];

  constructor(
    private readonly settings: ResolvedBackOfficeOptions,
    private readonly assets: ReadonlyMap<string, BackOfficeAsset>,
    private readonly explorer: ModelRoutesExplorer,
    private readonly config: ApplicationConfig | undefined,
  ) {
    this.scripts = [...assets.keys()].filter((name) => name.endsWith('.js'));
  }

  /** The HTML page, its links under `base()`. */
  page(): string {
    return backOfficePage(this.base(), this.settings.title, this.scripts, this.settings.auth);
  }

  /** Where the back office is: `/admin`, under the app's global prefix (read now: it is set after the module is declared). */
  base(): string {
    return `${this.prefix()}/${this.settings.path}`;
  }

  /**
   * A file of the app, by name; a 404 `MR_ROUTE_NOT_FOUND` for any other name, and a 304 (as
   * `NotModifiedException`) when `If-None-Match` names its tag.
   */
  asset(name: string, ifNoneMatch: string | undefined): BackOfficeAsset {
    const found = this.assets.get(name);
    if (!found) throw new ModelRoutesException('MR_ROUTE_NOT_FOUND', `The back office has no file '${name}'`);
    if (ifNoneMatch && matchesWeakly(parseEntityTags(ifNoneMatch), found.etag)) throw new NotModifiedException(found.etag);
    return found;
  }

  /**
   * The metadata of every resource, as `request` may see it (the fields its serialization groups
   * see), built on first use per group set. Throws a `ModelRoutesConfigError` when the app has no
   * `ModelRoutesModule`: the back office would have nothing to show.
   */
  metadata(request?: unknown): BackOfficeMetadata {
    const registrations = this.explorer.registrations();
    if (registrations.length === 0) {
      throw new ModelRoutesConfigError(
        'MR_CONFIG_INVALID_OPTION',
        'BackOfficeModule.forRoot(): the app has no ModelRoutesModule, whose routes the back office uses. ' +
          'Import ModelRoutesModule.forRoot({ resources }) in the app module too (with isGlobal left true, or in the same module).',
      );
    }
    const groups = registrations.map((registration) => (request === undefined ? undefined : registration.serializationGroups?.(request)));
    const key = JSON.stringify(groups.map((set) => [...new Set(set ?? [])].sort()));
    let built = this.built.get(key);
    if (!built) {
      // Groups come from the app, and may be many: a bound on the sets remembered, as the views have.
      if (this.built.size >= MAX_CACHED_GROUP_SETS) this.built.clear();
      built = backOfficeMetadata(registrations, this.settings, servingOf(this.config), groups);
      this.built.set(key, built);
    }
    return built;
  }

  private prefix(): string {
    return normalizePrefix(this.config?.getGlobalPrefix());
  }
}
