import { Controller, Injectable } from '@nestjs/common';
import { EventEmitterModule, OnEvent } from '@nestjs/event-emitter';
import { Prop, Schema } from '@nestjs/mongoose';
import {
  GeneratedController,
  GeneratedResource,
  InjectModelRepository,
  ModelRoutesModule,
  getModelRepositoryToken,
  type BeforeWriteContext,
  type ModelRepository,
  type ResourceHooks,
  type WriteEvent,
} from '../../../src/index.js';
import { bootTestApp, type TestApp } from '../../support/app.js';
import { useEngine } from '../../support/engine.js';

/**
 * Issue 40, item 1: the repository is handed its call (`repository.in(call.context)`), and the
 * library's own handlers run with no ambient slot. What the app's code sees does not change: its
 * hooks and event listeners run as their request's work, an override of a generated handler as the
 * call in progress, so the repositories they call without a context apply the request's row scope;
 * a context handed explicitly scopes as its request, whoever runs the code.
 */
export function callContextSpec(): void {
  const engine = useEngine();
  const tenantOf = ({ request }: { request: { headers: Record<string, unknown> } }) =>
    typeof request.headers['x-tenant'] === 'string' ? { tenant: request.headers['x-tenant'] } : false;

  @GeneratedResource({ path: 'ledger', plural: 'ledgers', readonly: ['tenant'], scope: tenantOf })
  @Schema()
  class Ledger {
    @Prop({ required: true }) tenant!: string;
    @Prop({ required: true }) label!: string;
  }

  /** Invoice's hooks: each counts the ledgers it can see through Ledger's repository, with no context of its own. */
  @Injectable()
  class InvoiceHooks implements ResourceHooks<Invoice> {
    constructor(@InjectModelRepository(Ledger) private readonly ledgers: ModelRepository<Ledger>) {}
    async beforeCreate({ data }: BeforeWriteContext<Invoice>) {
      data!.seen = (await this.ledgers.search({ filter: {}, limit: 50, skip: 0 })).result.map((ledger) => ledger.label).sort();
    }
  }

  /** Hears Invoice's events, and what Ledger's repository shows it while it does. */
  @Injectable()
  class InvoiceListener {
    /** What it saw, by the invoice whose event it heard: another test's event may still be heard after a test starts. */
    readonly heard = new Map<string, string[]>();
    constructor(@InjectModelRepository(Ledger) private readonly ledgers: ModelRepository<Ledger>) {}
    @OnEvent('invoice.created')
    async created(event: WriteEvent) {
      this.heard.set(event.id, (await this.ledgers.search({ filter: {}, limit: 50, skip: 0 })).result.map((ledger) => ledger.label).sort());
    }
  }

  @GeneratedResource({ path: 'invoice', plural: 'invoices', readonly: ['tenant', 'seen'], scope: tenantOf, hooks: InvoiceHooks })
  @Schema()
  class Invoice {
    @Prop({ required: true }) tenant!: string;
    @Prop({ required: true }) total!: number;
    @Prop({ type: [String] }) seen?: string[];
  }

  @GeneratedResource({ path: 'receipt', plural: 'receipts', readonly: ['tenant', 'seen'], scope: tenantOf })
  @Schema()
  class Receipt {
    @Prop({ required: true }) tenant!: string;
    @Prop({ required: true }) total!: number;
    @Prop({ type: [String] }) seen?: string[];
  }

  /** An override of a generated handler: its own repository call takes no context, and is scoped all the same. */
  @Controller()
  class ReceiptController extends GeneratedController(Receipt) {
    constructor(@InjectModelRepository(Ledger) private readonly ledgers: ModelRepository<Ledger>) {
      super();
    }
    override async findOne(id: string) {
      const receipt = await super.findOne(id);
      const seen = (await this.ledgers.search({ filter: {}, limit: 50, skip: 0 })).result.map((ledger) => ledger.label).sort();
      return { ...receipt, seen };
    }
  }

  let t: TestApp;
  beforeAll(async () => {
    t = await bootTestApp(engine, {
      imports: [EventEmitterModule.forRoot()],
      modelRoutes: ModelRoutesModule.forRoot({ resources: [Ledger, Invoice, Receipt], controllers: [ReceiptController], providers: [InvoiceListener] }),
    });
    const ledgers = t.connection.model('Ledger');
    await ledgers.create([
      { tenant: 'north', label: 'n1' },
      { tenant: 'north', label: 'n2' },
      { tenant: 'south', label: 's1' },
    ]);
  });
  afterAll(() => t?.close());

  it("runs a hook of a generated route (no override) as its request's work: the repositories it calls apply the request's scope", async () => {
    const north = await t.http().post('/invoice').set('x-tenant', 'north').send({ total: 10 }).expect(201);
    expect(north.body).toMatchObject({ tenant: 'north', seen: ['n1', 'n2'] });
    const south = await t.http().post('/invoice').set('x-tenant', 'south').send({ total: 20 }).expect(201);
    expect(south.body).toMatchObject({ tenant: 'south', seen: ['s1'] });
  });

  it("runs an event listener as the request's work too", async () => {
    const listener = t.app.get(InvoiceListener, { strict: false });
    const id = (await t.http().post('/invoice').set('x-tenant', 'south').send({ total: 30 }).expect(201)).body._id as string;
    // The listener is asynchronous: its answer lands after the emit; wait for this invoice's, without a timer.
    while (!listener.heard.has(id)) await new Promise((resolve) => setImmediate(resolve));
    expect(listener.heard.get(id)).toEqual(['s1']);
  });

  it('runs an override of a generated handler as the call in progress: its own repository calls are scoped', async () => {
    const receipt = await t.connection.model('Receipt').create({ tenant: 'north', total: 5 });
    const answer = await t.http().get(`/receipt/${receipt._id}`).set('x-tenant', 'north').expect(200);
    expect(answer.body).toMatchObject({ tenant: 'north', seen: ['n1', 'n2'] });
    // South reaches neither the receipt nor, through it, north's ledgers.
    await t.http().get(`/receipt/${receipt._id}`).set('x-tenant', 'south').expect(404);
  });

  it("scopes a repository handed a request's context explicitly, and leaves one without a context unscoped", async () => {
    const ledgers = t.app.get<ModelRepository<Ledger>>(getModelRepositoryToken(Ledger));
    const labels = async (repository: ModelRepository<Ledger>) =>
      (await repository.search({ filter: {}, limit: 50, skip: 0 })).result.map((ledger) => ledger.label).sort();
    expect(await labels(ledgers.in({ request: { headers: { 'x-tenant': 'south' } } }))).toEqual(['s1']);
    expect(await labels(ledgers)).toEqual(['n1', 'n2', 's1']);
    // A request whose scope reaches nothing, handed explicitly: nothing.
    expect(await labels(ledgers.in({ request: { headers: {} } }))).toEqual([]);
  });
}
