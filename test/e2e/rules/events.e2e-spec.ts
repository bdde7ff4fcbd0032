import { ForbiddenException, Injectable } from '@nestjs/common';
import { EventEmitter2, EventEmitterModule, OnEvent } from '@nestjs/event-emitter';
import { Prop, Schema } from '@nestjs/mongoose';
import { Types } from 'mongoose';
import {
  GeneratedResource,
  ModelRoutesModule,
  getModelRepositoryToken,
  type BeforeWriteContext,
  type ModelRepository,
  type ResourceHooks,
  type WriteEvent,
} from '../../../src/index.js';
import { bootTestApp, type TestApp } from '../../support/app.js';
import { useEngine } from '../../support/engine.js';

/** Issue 28, item 2: an event per stored write, through @nestjs/event-emitter when the application has it. */
export function eventsSpec(): void {
  const engine = useEngine();

  /** Hears every event of ships, as an application's listener would (`@OnEvent`). */
  @Injectable()
  class Harbour {
    readonly heard: WriteEvent[] = [];

    @OnEvent('ship.*')
    hear(event: WriteEvent) {
      this.heard.push(event);
    }
  }

  @Injectable()
  class ShipHooks implements ResourceHooks {
    beforeCreate({ data }: BeforeWriteContext) {
      if (data!.name === 'refused') throw new ForbiddenException('No such ship');
    }
  }

  @GeneratedResource({ path: 'sailor', plural: 'sailors' })
  @Schema()
  class Sailor {
    @Prop({ required: true }) name!: string;
  }

  @GeneratedResource({ path: 'ship', plural: 'ships', hidden: ['cargo'], hooks: ShipHooks })
  @Schema()
  class Ship {
    @Prop({ required: true }) name!: string;
    @Prop() port?: string;
    @Prop() cargo?: string;
    @Prop({ type: [{ type: Types.ObjectId, ref: 'Sailor' }] }) crew?: Types.ObjectId[];
  }

  let t: TestApp;
  const heard: Array<[string, WriteEvent]> = [];
  let harbour: Harbour;
  let ships: ModelRepository<Ship>;

  beforeAll(async () => {
    t = await bootTestApp(engine, {
      modelRoutes: ModelRoutesModule.forRoot({ resources: [Sailor, Ship] }),
      imports: [EventEmitterModule.forRoot({ wildcard: true })],
      providers: [Harbour],
    });
    harbour = t.app.get(Harbour);
    // Every event with its name, beside the application's @OnEvent listener.
    t.app.get(EventEmitter2).onAny((name, event) => heard.push([String(name), event as WriteEvent]));
    ships = t.app.get(getModelRepositoryToken(Ship));
  });
  afterAll(() => t?.close());

  /** The events heard since the last call, each with its name; the application's listener heard the same. */
  function events(): Array<[string, WriteEvent]> {
    const named = heard.splice(0);
    expect(harbour.heard.splice(0)).toEqual(named.map(([, event]) => event));
    return named;
  }

  it('ship.created, ship.updated with the changed paths, ship.deleted: the document as stored, hidden fields out', async () => {
    const created = (await t.http().post('/ship').send({ name: 'Pequod', port: 'Nantucket' }).expect(201)).body;
    await ships.update(created._id, { cargo: 'oil' });
    events();
    await t.http().patch(`/ship/${created._id}`).send({ port: 'Bedford' }).expect(200);
    await t.http().delete(`/ship/${created._id}`).expect(200);
    expect(events()).toEqual([
      [
        'ship.updated',
        { resource: 'Ship', operation: 'update', id: created._id, document: expect.objectContaining({ name: 'Pequod', port: 'Bedford' }), changed: ['port'] },
      ],
      ['ship.deleted', { resource: 'Ship', operation: 'delete', id: created._id, document: expect.objectContaining({ name: 'Pequod' }) }],
    ]);
    const again = (await t.http().post('/ship').send({ name: 'Rachel' }).expect(201)).body;
    const [[name, event]] = events();
    expect([name, event]).toEqual([
      'ship.created',
      { resource: 'Ship', operation: 'create', id: again._id, document: expect.objectContaining({ _id: expect.anything(), name: 'Rachel' }) },
    ]);
    expect(JSON.stringify(event)).not.toContain('cargo');
  });

  it('a write of one field is an update that names it; a refused write emits nothing; { hooks: false } skips the hooks, not the event', async () => {
    const sailor = String((await t.connection.model('Sailor').create({ name: 'Queequeg' }))._id);
    const ship = (await t.http().post('/ship').send({ name: 'Essex' }).expect(201)).body;
    events();
    await t.http().post(`/ship/${ship._id}/crew/${sailor}`).expect(200);
    expect(events()).toEqual([['ship.updated', expect.objectContaining({ operation: 'addReference', field: 'crew', changed: ['crew'] })]]);
    await t.http().post('/ship').send({ name: 'refused' }).expect(403);
    expect(events()).toEqual([]);
    await ships.create({ name: 'refused' }, { hooks: false });
    expect(events()).toEqual([['ship.created', expect.objectContaining({ operation: 'create', document: expect.objectContaining({ name: 'refused' }) })]]);
  });
}
