/**
 * The pages of a search as a typed client sees them (issue 42, item 3): without `select`, every
 * item is a whole document, `<Name>List`; with it, `<Name>SelectedList`. A client generated with
 * openapi-typescript types the items of the page it asked for as the document, compiled in memory,
 * strict; the app's answers are checked against each page's schema on its own.
 */
import { Prop, Schema } from '@nestjs/mongoose';
import { DocumentBuilder, type OpenAPIObject } from '@nestjs/swagger';
import { GeneratedResource } from '../../../src/index.js';
import { createModelRoutesDocument } from '../../../src/swagger/index.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { useEngine } from '../../support/engine.js';
import { OpenApiContract } from '../../support/openapi-contract.js';
import { clientTypes, compile, COMPILE_TIMEOUT } from '../../support/typed-client.js';

@Schema({ _id: false })
class TicketComment {
  @Prop({ required: true }) text!: string;
}

@GeneratedResource()
@Schema()
class Ticket {
  @Prop({ required: true }) title!: string;
  @Prop({ required: true, enum: ['open', 'closed'] }) state!: string;
  @Prop({ type: [TicketComment] }) comments?: TicketComment[];
}

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function typedListSpec(): void {
  const engine = useEngine();
  let t: TestApp;
  let document: OpenAPIObject;
  let types: string;

  beforeAll(async () => {
    t = await createTestApp(engine, { resources: [Ticket] });
    document = createModelRoutesDocument(t.app, new DocumentBuilder().setTitle('tickets').build());
    types = await clientTypes(document);
  });
  afterAll(() => t?.close());

  const answer = (path: string, method: string) => `paths['${path}']['${method}']['responses'][200]['content']['application/json']`;

  it('documents a search as either page: whole documents (TicketList) or selected fields (TicketSelectedList)', () => {
    const schemas = document.components!.schemas as Record<string, { required?: string[]; properties: { result: { items: unknown } } }>;
    expect(schemas.TicketList.properties.result.items).toEqual({ $ref: '#/components/schemas/Ticket' });
    expect(schemas.TicketSelectedList.properties.result.items).toEqual({ $ref: '#/components/schemas/TicketSelected' });
    expect(schemas.Ticket.required).toEqual(expect.arrayContaining(['title', 'state']));
    for (const method of ['get', 'post']) {
      const response = (document.paths['/tickets'] as Record<string, { responses: Record<string, { content: Record<string, { schema: unknown }> }> }>)[method]
        .responses['200'];
      expect(response.content['application/json'].schema).toEqual({
        anyOf: [{ $ref: '#/components/schemas/TicketList' }, { $ref: '#/components/schemas/TicketSelectedList' }],
      });
    }
  });

  it('answers a search without select with whole documents, and one with select with the selected fields only', async () => {
    await t
      .http()
      .post('/ticket')
      .send({ title: 'Printer on fire', state: 'open', comments: [{ text: 'Again' }] })
      .expect(201);
    const contract = new OpenApiContract(document);
    const whole = (await t.http().get('/tickets').expect(200)).body;
    expect(contract.errorsAgainst('TicketList', whole)).toEqual([]);
    const posted = (
      await t
        .http()
        .post('/tickets')
        .send({ query: { state: 'open' } })
        .expect(200)
    ).body;
    expect(contract.errorsAgainst('TicketList', posted)).toEqual([]);
    const selected = (await t.http().get('/tickets?select=state').expect(200)).body;
    expect(contract.errorsAgainst('TicketSelectedList', selected)).toEqual([]);
    // Not a page of whole documents: the title is not there, and the document says so.
    expect(contract.errorsAgainst('TicketList', selected).join('\n')).toMatch(/title/);
  });

  it(
    'gives a generated client (openapi-typescript) the items of a page without select as the document: (t: Ticket) => t.title compiles',
    () => {
      const client = [
        "import type { components, paths } from './api';",
        "type Ticket = components['schemas']['Ticket'];",
        "type TicketList = components['schemas']['TicketList'];",
        `declare const searched: ${answer('/tickets', 'get')};`,
        `declare const posted: ${answer('/tickets', 'post')};`,
        // Sent without select: the client takes the page it asked for.
        'export const titles: string[] = (searched as TicketList).result.map((t: Ticket) => t.title);',
        'export const open: Ticket[] = (posted as TicketList).result.filter((t: Ticket) => t.state === "open");',
        'export const comments: number | undefined = (searched as TicketList).result[0]?.comments?.length;',
        // Sent with select: every field but _id may be absent.
        "declare const selected: components['schemas']['TicketSelectedList'];",
        'export const maybe: Array<string | undefined> = selected.result.map((t) => t.title);',
        'export const ids: string[] = selected.result.map((t) => t._id);',
      ].join('\n');
      expect(compile({ 'api.ts': types, 'client.ts': client })).toEqual([]);
    },
    COMPILE_TIMEOUT,
  );

  it(
    'refuses, at compile time, a selected page read as whole documents, and a search answer read as either without saying which',
    () => {
      const wrong = [
        "import type { components, paths } from './api';",
        "type Ticket = components['schemas']['Ticket'];",
        "declare const selected: components['schemas']['TicketSelectedList'];",
        `declare const searched: ${answer('/tickets', 'get')};`,
        'export const titles = selected.result.map((t: Ticket) => t.title);',
        'export const either = searched.result.map((t: Ticket) => t.title);',
      ].join('\n');
      const diagnostics = compile({ 'api.ts': types, 'wrong.ts': wrong });
      expect(diagnostics.map((diagnostic) => /wrong\.ts:(\d+)/.exec(diagnostic)?.[1])).toEqual(['5', '6']);
    },
    COMPILE_TIMEOUT,
  );
}
