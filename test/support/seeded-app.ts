import type { ModelRoutesModuleOptions } from '../../src/index.js';
import { Account, Company, Entrepreneur } from '../fixtures/models.js';
import { seedFixtureData } from '../fixtures/seed-data.js';
import { createTestApp, type TestApp } from './app.js';
import type { TestEngine } from './engine.js';

/**
 * Boots the fixture app (users, companies, accounts; the library's error shape on every path)
 * on the file's engine before the enclosing block's tests, seeds it with `seed-data.ts`, and
 * closes it after them. `use` receives the app; `options` are more of `forRoot`'s.
 */
export function useSeededApp(engine: TestEngine, use: (app: TestApp) => void, options: Omit<ModelRoutesModuleOptions, 'resources'> = {}): void {
  let app: TestApp | undefined;
  beforeAll(async () => {
    app = await createTestApp(engine, { resources: [Entrepreneur, Company, Account], globalErrorFilter: true, ...options });
    await seedFixtureData(app.connection);
    use(app);
  });
  afterAll(() => app?.close());
}
