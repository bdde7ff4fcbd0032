/**
 * Overload (issue 26, item 6): the generated routes of a registration do their database work at
 * most `admission.concurrency` at a time, at most `admission.queue` wait, and the next one is a 503
 * `MR_OVERLOADED` with `Retry-After`, at once and without touching the database. The bounds come
 * from the connection pool: this app's `maxPoolSize` of 8 gives an adaptive limit of at most 2 (and
 * at least 2); it lets 2 wait. Issue 41: a request that would wait, or has waited, longer than
 * `admission.maxWait` is refused rather than started late (a second app, with a fixed limit of 1).
 *
 * Deterministic: an override of `findOne` waits at a gate the test opens, so requests are held
 * inside their work for as long as the test says; where a request is (at the gate, in the queue)
 * is known from events, never from time.
 */
import { EventEmitter, once } from 'node:events';
import { Controller } from '@nestjs/common';
import { Prop, Schema } from '@nestjs/mongoose';
import type { Response } from 'supertest';
import { GeneratedController, GeneratedResource, ModelRoutesModule, type PlainDocument } from '../../../src/index.js';
import { ADMISSION } from '../../../src/constants.js';
import type { Admission } from '../../../src/concurrency/admission.js';
import { bootTestApp, testAdapter, type TestApp } from '../../support/app.js';
import { useEngine } from '../../support/engine.js';
import { expectError } from '../../support/expect-error.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function admissionSpec(): void {
  @GeneratedResource()
  @Schema()
  class Turbine {
    @Prop({ required: true }) name!: string;
    @Prop() watts?: number;
  }

  /** Holds the `findOne`s that reach it until it is opened; says (`'arrived'`) how many wait at it. */
  class Gate extends EventEmitter {
    waiting = 0;
    /** Every request that ever reached the gate. */
    arrivals = 0;
    private release!: () => void;
    private opened = new Promise<void>((resolve) => (this.release = resolve));

    async pass(): Promise<void> {
      this.arrivals++;
      this.waiting++;
      this.emit('arrived', this.waiting);
      await this.opened;
      this.waiting--;
    }

    open(): void {
      this.release();
    }

    /** A closed gate again, for the next test. */
    reset(): void {
      this.opened = new Promise<void>((resolve) => (this.release = resolve));
    }

    /** Resolves once `count` requests wait at the gate. */
    async until(count: number): Promise<void> {
      while (this.waiting < count) await once(this, 'arrived');
    }
  }
  const gate = new Gate();

  @Controller()
  class TurbineController extends GeneratedController(Turbine) {
    // The database work of a GET /turbine/:id, held at the gate: the request keeps its place meanwhile.
    override async findOne(id: string): Promise<PlainDocument<Turbine>> {
      await gate.pass();
      return super.findOne(id);
    }
  }

  const engine = useEngine();
  let t: TestApp;
  let admission: Admission;
  /** The commands the app's connection sent to the database (the driver's command monitoring). */
  let commands = 0;
  let id: string;

  beforeAll(async () => {
    t = await bootTestApp(engine, {
      // A wait no test request reaches: the requests held at the gate are the subject here, not their time. Two waiting (the default is twice max).
      modelRoutes: ModelRoutesModule.forRoot({ resources: [Turbine], controllers: [TurbineController], admission: { maxWait: 60_000, queue: 2 } }),
      mongoose: { maxPoolSize: 8, monitorCommands: true },
    });
    admission = t.app.get<Admission>(ADMISSION, { strict: false });
    t.connection.getClient().on('commandStarted', () => void commands++);
    id = (await t.http().post('/turbine').send({ name: 'T1', watts: 5 }).expect(201)).body._id as string;
  });
  afterAll(async () => {
    gate.open();
    await t?.close();
  });

  /** Sends a request now (supertest sends on `then`); its answer, once the test wants it. */
  const send = (request: PromiseLike<Response>): Promise<Response> => Promise.resolve(request);
  const getOne = () => send(t.http().get(`/turbine/${id}`));

  it('derives its bounds from the connection pool: an adaptive limit of at most a quarter of maxPoolSize, Retry-After 1 s', () => {
    expect(admission.options).toEqual({
      concurrency: 2,
      queue: 2,
      maxWait: 60_000,
      retryAfter: 1,
      exports: 2,
      imports: 2,
      // What is slow is a quarter of the searches' time limit (default 5000 ms).
      adaptive: { min: 2, max: 2, initial: 2, slow: 1250 },
    });
    expect(admission.concurrency).toBe(2);
  });

  it(
    'past the requests at work and those waiting, answers 503 MR_OVERLOADED with Retry-After at once, without touching the database; the ' +
      'others are served',
    async () => {
      gate.reset();
      const atWork = [getOne(), getOne()];
      await gate.until(2);
      expect(admission.running).toBe(2);
      const queued = [
        getOne(),
        send(
          t
            .http()
            .post('/turbines')
            .send({ query: { name: 'T1' } }),
        ),
      ];
      while (admission.queued < 2) await once(admission, 'queued');

      const before = { commands, shed: admission.shed, documents: await t.connection.model('Turbine').countDocuments() };
      commands = 0;
      // Answered while the gate is still closed: nothing it waits for is released.
      const refused = await Promise.all([
        getOne(),
        send(t.http().post('/turbine').send({ name: 'T2' })),
        send(t.http().get('/turbines?limit=5')),
        send(t.http().put(`/turbine/${id}`).send({ watts: 7 })),
      ]);
      for (const response of refused) {
        expectError(response, 503, 'MR_OVERLOADED');
        expect(response.headers['retry-after']).toBe('1');
        expect(response.body.message).toMatch(/admission limit \(2 requests at work on 2 places and 2 waiting/);
      }
      // A body that is not JSON, sent while no place is free: Fastify refuses the request before its body is read
      // (an onRequest hook), Express parses the body before any of the library's code runs, so it answers the body's 400.
      const malformed = await send(t.http().post('/turbines').set('Content-Type', 'application/json').send('{"query": {'));
      if (testAdapter() === 'fastify') {
        expectError(malformed, 503, 'MR_OVERLOADED');
        expect(malformed.headers['retry-after']).toBe('1');
        expect(malformed.body.message).toMatch(/admission limit \(2 requests at work on 2 places and 2 waiting/);
      } else {
        expectError(malformed, 400, 'MR_INVALID_JSON');
      }
      expect(commands).toBe(0);
      expect(admission.shed - before.shed).toBe(testAdapter() === 'fastify' ? 5 : 4);
      expect([admission.running, admission.queued, gate.waiting]).toEqual([2, 2, 2]);

      gate.open();
      const served = await Promise.all([...atWork, ...queued]);
      expect(served.map((response) => response.status)).toEqual([200, 200, 200, 200]);
      expect(served[2]!.body).toMatchObject({ _id: id, watts: 5 });
      expect(served[3]!.body.status).toMatchObject({ search_count: 1 });
      // Nothing the refused requests asked for was written.
      expect(await t.connection.model('Turbine').countDocuments()).toBe(before.documents);
      expect(await t.connection.model('Turbine').findById(id).lean()).toMatchObject({ watts: 5 });
      // Every place was given back: the next requests are admitted.
      expect([admission.running, admission.queued]).toEqual([0, 0]);
      await t.http().get(`/turbine/${id}`).expect(200);
    },
  );

  it('a request refused by its own check (400) or its route (404) gives its place back', async () => {
    gate.open();
    for (let i = 0; i < 5; i++) {
      expectError(await t.http().get('/turbines?colour=red'), 400, 'MR_INVALID_QUERY');
      expectError(await t.http().post('/turbine').send({ name: 'T3', colour: 'red' }), 400, 'MR_INVALID_BODY');
      expectError(await t.http().get('/turbine/0123456789abcdef01234567'), 404, 'MR_NOT_FOUND');
    }
    expect([admission.running, admission.queued]).toEqual([0, 0]);
  });

  it('a client that goes away while its request works keeps the place until the work is done', async () => {
    gate.reset();
    const server = await listening(t);
    const closed = new EventEmitter();
    const onRequest = (_request: unknown, response: import('node:http').ServerResponse) => response.once('close', () => closed.emit('closed'));
    server.on('request', onRequest);
    const controller = new AbortController();
    const gone = fetch(`${urlOf(server)}/turbine/${id}`, { signal: controller.signal }).catch((error: unknown) => error);
    await gate.until(1);
    const seen = once(closed, 'closed');
    controller.abort();
    await gone;
    // The server saw the connection close (its listeners, the library's among them, have run).
    await seen;
    server.off('request', onRequest);
    // The answer will never be read, and the connection is closed; the work still runs.
    const kept = getOne();
    await gate.until(2);
    expect(admission.running).toBe(2);
    gate.open();
    expect((await kept).status).toBe(200);
    while (admission.running > 0) await once(admission, 'left');
    expect([admission.running, admission.queued]).toEqual([0, 0]);
  });

  it('a client that goes away while its request waits for a place takes it out of the queue: its work never runs', async () => {
    gate.reset();
    const atWork = [getOne(), getOne()];
    await gate.until(2);
    const arrivals = gate.arrivals;
    const server = await listening(t);
    const controller = new AbortController();
    const gone = fetch(`${urlOf(server)}/turbine/${id}`, { signal: controller.signal }).catch((error: unknown) => error);
    while (admission.queued < 1) await once(admission, 'queued');
    const withdrawn = once(admission, 'withdrawn');
    controller.abort();
    await gone;
    await withdrawn;
    expect([admission.running, admission.queued]).toEqual([2, 0]);
    gate.open();
    expect((await Promise.all(atWork)).map((response) => response.status)).toEqual([200, 200]);
    while (admission.running > 0) await once(admission, 'left');
    // No request reached its work after the two admitted ones: the withdrawn one was never given the place they left.
    expect(gate.arrivals).toBe(arrivals);
    await t.http().get(`/turbine/${id}`).expect(200);
  });

  describe('maxWait (issue 41)', () => {
    let fixed: TestApp;
    let limited: Admission;
    const MAX_WAIT = 100;
    let turbine: string;
    beforeAll(async () => {
      fixed = await bootTestApp(engine, {
        modelRoutes: ModelRoutesModule.forRoot({
          resources: [Turbine],
          controllers: [TurbineController],
          admission: { concurrency: 1, queue: 4, maxWait: MAX_WAIT },
        }),
        mongoose: { monitorCommands: true },
      });
      limited = fixed.app.get<Admission>(ADMISSION, { strict: false });
      // Written past the routes: the first request the limit times is the first test's, held longer than maxWait.
      turbine = String((await fixed.connection.model('Turbine').create({ name: 'T9' }))._id);
    });
    afterAll(async () => {
      gate.open();
      await fixed?.close();
    });
    const held = () => send(fixed.http().get(`/turbine/${turbine}`));

    it('refuses, when its turn comes, a request that waited longer than maxWait: its work never runs', async () => {
      gate.reset();
      const atWork = held();
      await gate.until(1);
      const late = held();
      while (limited.queued < 1) await once(limited, 'queued');
      const queuedAt = performance.now();
      const arrivals = gate.arrivals;
      // Waits for the clock, not for a duration: the queued request has waited longer than maxWait whatever the machine's speed.
      while (performance.now() - queuedAt <= MAX_WAIT) await new Promise((resolve) => setTimeout(resolve, MAX_WAIT / 4));
      gate.open();
      expect((await atWork).status).toBe(200);
      const refused = await late;
      expectError(refused, 503, 'MR_OVERLOADED');
      expect(refused.headers['retry-after']).toBe('1');
      expect(refused.body.message).toMatch(/forRoot\(\{ admission: \{ concurrency, queue \} \}\)/);
      expect(gate.arrivals).toBe(arrivals);
      expect([limited.running, limited.queued]).toEqual([0, 0]);
    });

    it('refuses at once a request that would wait longer than maxWait at the recent pace, without queueing it', async () => {
      // The only request timed so far (the first test's, admitted) held its place longer than maxWait: one behind the one at work would wait as long.
      gate.reset();
      const atWork = held();
      await gate.until(1);
      const shed = limited.shed;
      const refused = await held();
      expectError(refused, 503, 'MR_OVERLOADED');
      expect([limited.queued, limited.shed - shed]).toEqual([0, 1]);
      gate.open();
      expect((await atWork).status).toBe(200);
    });
  });
}

/** The app's HTTP server, listening on an ephemeral port of 127.0.0.1 (supertest then sends to it too). */
async function listening(t: TestApp): Promise<import('node:net').Server> {
  const server = t.app.getHttpServer() as import('node:net').Server;
  if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

function urlOf(server: import('node:net').Server): string {
  return `http://127.0.0.1:${(server.address() as import('node:net').AddressInfo).port}`;
}
