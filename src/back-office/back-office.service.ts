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

/** What the back office's routes answer: its page, its files, and the app's metadata, built once. */
export class BackOfficeService {
  private built?: BackOfficeMetadata;
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
   * The metadata of every resource, built on first use. Throws a `ModelRoutesConfigError` when
   * the app has no `ModelRoutesModule`: the back office would have nothing to show.
   */
  metadata(): BackOfficeMetadata {
    if (this.built) return this.built;
    const registrations = this.explorer.registrations();
    if (registrations.length === 0) {
      throw new ModelRoutesConfigError(
        'MR_CONFIG_INVALID_OPTION',
        'BackOfficeModule.forRoot(): the app has no ModelRoutesModule, whose routes the back office uses. ' +
          'Import ModelRoutesModule.forRoot({ resources }) in the app module too (with isGlobal left true, or in the same module).',
      );
    }
    return (this.built = backOfficeMetadata(registrations, this.settings, servingOf(this.config)));
  }

  private prefix(): string {
    return normalizePrefix(this.config?.getGlobalPrefix());
  }
}
