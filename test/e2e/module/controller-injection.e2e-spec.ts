import { Controller, Get, Injectable, Module } from '@nestjs/common';
import { GeneratedController, InjectModelRepository, ModelRepository, ModelRoutesModule } from '../../../src/index.js';
import { Shop } from '../../fixtures/extend-models.js';
import { bootTestApp } from '../../support/app.js';
import { useEngine } from '../../support/engine.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function controllerInjectionSpec(): void {
  /** What a user's controller injects: providers and modules given through forRoot({ providers, imports }), and its repository handed to super(). */

  const engine = useEngine();

  @Injectable()
  class Greeter {
    greet(name: string): string {
      return `hello ${name}`;
    }
  }

  @Injectable()
  class Clock {
    now(): string {
      return '2026-01-01T00:00:00.000Z';
    }
  }

  /** A plain (not global) module exporting Clock. */
  @Module({ providers: [Clock], exports: [Clock] })
  class ClockModule {}

  @Controller()
  class GreetingShopController extends GeneratedController(Shop) {
    constructor(
      private readonly greeter: Greeter,
      private readonly clock: Clock,
    ) {
      super();
    }

    @Get('greeting')
    greeting() {
      return { text: this.greeter.greet('shop'), at: this.clock.now() };
    }
  }

  function boot(moduleOptions: 'sync' | 'async') {
    const common = { resources: [Shop], controllers: [GreetingShopController], providers: [Greeter] };
    const modelRoutes =
      moduleOptions === 'sync'
        ? ModelRoutesModule.forRoot({ ...common, imports: [ClockModule] })
        : ModelRoutesModule.forRootAsync({ ...common, imports: [ClockModule], inject: [Clock], useFactory: () => ({}) });
    return bootTestApp(engine, { modelRoutes });
  }

  it.each(['sync', 'async'] as const)('a controller injects providers and imported modules given to forRoot (%s)', async (mode) => {
    const { http } = await boot(mode);
    const response = await http().get('/shop/greeting').expect(200);
    expect(response.body).toEqual({ text: 'hello shop', at: '2026-01-01T00:00:00.000Z' });
    await http().post('/shop').send({ name: 'Corner' }).expect(201);
  });

  @Controller()
  class EarlyShopController extends GeneratedController(Shop) {
    /** Read in the constructor: the repository handed to super() is there before any request. */
    readonly modelName: string;

    constructor(
      @InjectModelRepository(Shop) repository: ModelRepository<Shop>,
      private readonly greeter: Greeter,
    ) {
      super(repository);
      this.modelName = this.repository.model.modelName;
    }

    @Get('early')
    early() {
      return { modelName: this.modelName, text: this.greeter.greet('early') };
    }
  }

  it('a controller that hands the injected repository to super() reads this.repository in its constructor', async () => {
    const { http } = await bootTestApp(engine, {
      modelRoutes: ModelRoutesModule.forRoot({ resources: [Shop], controllers: [EarlyShopController], providers: [Greeter] }),
    });
    expect((await http().get('/shop/early').expect(200)).body).toEqual({ modelName: 'Shop', text: 'hello early' });
    // The generated routes use the same repository.
    const shop = (await http().post('/shop').send({ name: 'Corner' }).expect(201)).body;
    await http().get(`/shop/${shop._id}`).expect(200);
  });
}
