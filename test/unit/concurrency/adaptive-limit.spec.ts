import { FixedLimit, GradientLimit } from '../../../src/concurrency/adaptive-limit.js';
import { Admission, type AdmissionTicket } from '../../../src/concurrency/admission.js';
import { ModelRoutesException } from '../../../src/errors/model-routes.exception.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function adaptiveLimitSpec(): void {
  const read = { route: 'get one' };
  const search = { route: 'search' };

  /** `count` requests of `kind` done, each `elapsed` ms, admitted with the limit full. */
  const run = (limit: GradientLimit, kind: object, elapsed: number, count: number, busy = limit.current) => {
    for (let i = 0; i < count; i++) limit.done(kind, elapsed, true, limit.generation, busy);
  };

  describe('GradientLimit', () => {
    it('starts at its initial limit within its bounds', () => {
      expect(new GradientLimit({ min: 2, max: 25, initial: 2, slow: 1000 }).current).toBe(2);
      expect(new GradientLimit({ min: 2, max: 5, initial: 9, slow: 1000 }).current).toBe(5);
      expect(new GradientLimit({ min: 3, max: 5, initial: 1, slow: 1000 }).current).toBe(3);
    });

    it('grows by its square root per window while requests keep their best time and fill it, up to max', () => {
      const limit = new GradientLimit({ min: 2, max: 25, initial: 2, slow: 1000 });
      const seen: number[] = [];
      for (let window = 0; window < 12; window++) {
        run(limit, read, 5, Math.max(8, limit.current));
        seen.push(limit.current);
      }
      expect(seen.slice(0, 5)).toEqual([3, 5, 7, 10, 13]);
      expect(seen.at(-1)).toBe(25);
    });

    it('does not grow while the requests never fill it (the limit bounds nothing)', () => {
      const limit = new GradientLimit({ min: 2, max: 25, initial: 4, slow: 1000 });
      run(limit, read, 5, 40, 1);
      expect(limit.current).toBe(4);
    });

    it('shrinks in proportion when the typical request is more than twice slower than its best, at most by half a window', () => {
      const limit = new GradientLimit({ min: 2, max: 40, initial: 20, slow: 1000 });
      run(limit, read, 5, 20, 1);
      expect(limit.current).toBe(20);
      run(limit, read, 12.5, 20);
      // Median ratio about 2.35 (2.5 against a best that drifts up a little towards the new times): 20 × 2 / 2.35.
      expect(limit.current).toBe(17);
      run(limit, read, 100, limit.current);
      // Twenty times slower: halved, not cut to its floor.
      expect(limit.current).toBe(8);
      expect(limit.generation).toBe(2);
    });

    it('compares each route with its own best time, so a slow route among fast ones is not overload', () => {
      const limit = new GradientLimit({ min: 2, max: 40, initial: 10, slow: 1000 });
      for (let i = 0; i < 40; i++) {
        limit.done(read, 5, true, limit.generation, limit.current);
        limit.done(search, 300, true, limit.generation, limit.current);
      }
      expect(limit.current).toBeGreaterThan(10);
    });

    it('halves on a slow request, success or failure, once for the requests admitted at the same limit; never under min', () => {
      const limit = new GradientLimit({ min: 2, max: 40, initial: 16, slow: 1000 });
      const admittedAt = limit.generation;
      limit.done(search, 1500, false, admittedAt, 16);
      expect(limit.current).toBe(8);
      // The rest of the same burst, admitted before the cut: no further cut.
      limit.done(search, 1800, true, admittedAt, 16);
      limit.done(search, 2000, false, admittedAt, 16);
      expect(limit.current).toBe(8);
      // Admitted after it, still slow: halved again, down to min at most.
      for (let i = 0; i < 5; i++) limit.done(search, 1500, true, limit.generation, 8);
      expect(limit.current).toBe(2);
    });

    it('learns nothing from a fast failure: a refused request is no best time', () => {
      const limit = new GradientLimit({ min: 2, max: 40, initial: 10, slow: 1000 });
      limit.done(read, 0.1, false, 0, 10);
      run(limit, read, 5, 30);
      expect(limit.current).toBeGreaterThan(10);
    });

    it('follows a best time that rose for good (a grown collection), slowly', () => {
      const limit = new GradientLimit({ min: 2, max: 40, initial: 10, slow: 1000 });
      run(limit, read, 5, 10, 1);
      // Every request now takes 15 ms: at first three times the best, so the limit shrinks; then the best catches up and it grows again.
      run(limit, read, 15, 10);
      expect(limit.current).toBe(6);
      for (let i = 0; i < 100; i++) run(limit, read, 15, Math.max(8, limit.current));
      expect(limit.current).toBe(40);
    });

    it('gives a route one place per slow / max of its recent time, at most the limit: a full limit is at most `slow` of work', () => {
      const limit = new GradientLimit({ min: 2, max: 10, initial: 10, slow: 1000 });
      expect(limit.places(search)).toBe(1);
      expect(limit.places(undefined)).toBe(1);
      run(limit, read, 5, 1, 1);
      run(limit, search, 250, 1, 1);
      // A place is 100 ms of best time here: a read takes one, a search of 250 ms three.
      expect([limit.places(read), limit.places(search)]).toEqual([1, 3]);
      // At most half the limit: the other routes keep the other half.
      const exported = { route: 'export' };
      run(limit, exported, 990, 1, 1);
      expect(limit.places(exported)).toBe(5);
      // The recent time follows a route's requests, a quarter of the way per request: 250, then 100 → 212.5 ms, 3 places; 50 → 3.
      run(limit, search, 100, 1, 1);
      expect(limit.places(search)).toBe(3);
      run(limit, search, 50, 8, 1);
      expect(limit.places(search)).toBe(1);
      // A request slower than slow counts too (the limit halved): no route takes more places than the limit.
      const report = { route: 'report' };
      run(limit, report, 4000, 1, 1);
      expect([limit.current, limit.places(report), limit.places(exported)]).toEqual([5, 2, 2]);
      // A failure that was fast says nothing of the route's time.
      limit.done(read, 900, false, limit.generation, 1);
      expect(limit.places(read)).toBe(1);
    });

    it('counts a window as filling the limit when one more request of its route would not have found its places', () => {
      const limit = new GradientLimit({ min: 2, max: 10, initial: 10, slow: 1000 });
      run(limit, search, 250, 1, 1);
      // Three searches of three places each: 9 of 10 places, and a fourth would not fit.
      run(limit, search, 250, 10, 9);
      expect(limit.current).toBe(10);
      const small = new GradientLimit({ min: 2, max: 20, initial: 10, slow: 1000 });
      run(small, search, 120, 1, 1);
      run(small, search, 120, 10, 8);
      expect(small.current).toBe(13);
    });
  });

  describe('FixedLimit', () => {
    it('never moves, and gives every request one place', () => {
      const limit = new FixedLimit(7);
      limit.done();
      expect([limit.current, limit.generation, limit.places()]).toEqual([7, 0, 1]);
    });
  });

  describe('Admission with an adaptive limit', () => {
    /** A clock the test moves. */
    const clock = () => {
      let time = 0;
      return { now: () => time, advance: (ms: number) => void (time += ms) };
    };
    const options = (maxWait: number, queue = 10) => ({
      concurrency: 2,
      queue,
      retryAfter: 1,
      exports: 2,
      imports: 2,
      maxWait,
      adaptive: { min: 2, max: 10, initial: 2, slow: 1000 },
    });

    /** `rounds` rounds of reads that fill the limit, each 5 ms, all ended before the next round. */
    const fillWithReads = (admission: Admission, time: ReturnType<typeof clock>, rounds: number) => {
      for (let i = 0; i < rounds; i++) {
        const tickets = Array.from({ length: admission.concurrency }, () => admission.enter(undefined, read) as AdmissionTicket);
        time.advance(5);
        for (const ticket of tickets) ticket.end();
      }
    };

    it('grows as admitted requests keep their time, so more work at once', () => {
      const time = clock();
      const admission = new Admission(options(1000), time.now);
      fillWithReads(admission, time, 20);
      expect(admission.concurrency).toBe(10);
    });

    it('sheds at once a request whose wait, by the queue ahead and the recent pace, would pass maxWait', async () => {
      const time = clock();
      const admission = new Admission(options(100), time.now);
      // The recent pace: 80 ms per request.
      const first = admission.enter(undefined, search) as AdmissionTicket;
      time.advance(80);
      first.end();
      const running = [admission.enter(undefined, search), admission.enter(undefined, search)] as AdmissionTicket[];
      // One ahead: 80 ms for 2 places, 40 ms; two ahead, 80 ms; three, 120 ms: over 100.
      const waiting = [admission.enter(undefined, search), admission.enter(undefined, search)];
      expect(waiting.every((entered) => entered instanceof Promise)).toBe(true);
      expect(() => admission.enter(undefined, search)).toThrow(expect.objectContaining({ code: 'MR_OVERLOADED' }));
      expect([admission.running, admission.queued, admission.shed]).toEqual([2, 2, 1]);
      time.advance(50);
      running[0]!.end();
      (await waiting[0]!)!.end();
      running[1]!.end();
      (await waiting[1]!)!.end();
      expect([admission.running, admission.queued]).toEqual([0, 0]);
    });

    it('refuses, when its turn comes, a request that waited past maxWait, rather than start it late', async () => {
      const time = clock();
      const admission = new Admission(options(100), time.now);
      const running = [admission.enter(undefined, search), admission.enter(undefined, search)] as AdmissionTicket[];
      // A read, whose route has no best time yet: one place, so its turn comes as the first search ends.
      const late = admission.enter(undefined, read) as Promise<AdmissionTicket>;
      const refused = late.catch((error: unknown) => error);
      time.advance(150);
      running[0]!.end();
      const error = await refused;
      expect(error).toBeInstanceOf(ModelRoutesException);
      expect(error).toMatchObject({ code: 'MR_OVERLOADED', headers: { 'Retry-After': '1' } });
      expect((error as Error).message).toMatch(
        /admission limit \(1 request at work on 2 places and 0 waiting: forRoot\(\{ admission: \{ min, max, queue, maxWait \} \}\)\)/,
      );
      expect([admission.running, admission.queued, admission.shed]).toEqual([1, 0, 1]);
      running[1]!.end();
    });

    it('while the database cannot be reached, refuses with MR_DATABASE_UNAVAILABLE and its cause, without shrinking; a success ends it', async () => {
      const time = clock();
      const admission = new Admission(options(100, 1), time.now);
      const outage = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:27017'), { name: 'MongoServerSelectionError' });
      const running = [admission.enter(undefined, read), admission.enter(undefined, read)] as AdmissionTicket[];
      const waiting = admission.enter(undefined, read) as Promise<AdmissionTicket>;
      const refused = waiting.catch((error: unknown) => error);
      // Server selection gives up after seconds: slower than `slow`, but no sign of load.
      time.advance(3000);
      running[0]!.fail(outage);
      running[0]!.end();
      const error = await refused;
      expect(error).toMatchObject({ code: 'MR_DATABASE_UNAVAILABLE', headers: { 'Retry-After': '1' }, cause: outage });
      expect(admission.concurrency).toBe(2);
      // Refused at once too while it lasts, when the queue is full.
      const atWork = admission.enter(undefined, read) as AdmissionTicket;
      const queued = admission.enter(undefined, read) as Promise<AdmissionTicket>;
      expect(() => admission.enter(undefined, read)).toThrow(expect.objectContaining({ code: 'MR_DATABASE_UNAVAILABLE' }));
      // A success ends it: the next refusal is the limit's own (here by the recent pace, the 3 s of that success).
      running[1]!.end();
      const next = await queued;
      expect(() => admission.enter(undefined, read)).toThrow(expect.objectContaining({ code: 'MR_OVERLOADED' }));
      atWork.end();
      next.end();
      expect([admission.running, admission.queued]).toEqual([0, 0]);
    });

    it('lets a burst of a slow route in by its places, after a load of fast reads grew the limit; the queue keeps its order', async () => {
      const time = clock();
      const admission = new Admission(options(10_000), time.now);
      fillWithReads(admission, time, 20);
      expect(admission.concurrency).toBe(10);
      // The search route's best time: 250 ms alone, three places of the ten (a place is slow / max, 100 ms).
      const alone = admission.enter(undefined, search) as AdmissionTicket;
      time.advance(250);
      alone.end();
      const burst = Array.from({ length: 6 }, () => admission.enter(undefined, search));
      expect(burst.map((entered) => entered instanceof Promise)).toEqual([false, false, false, true, true, true]);
      // A read that comes after them waits behind them, though a place is free.
      const read1 = admission.enter(undefined, read);
      expect(read1).toBeInstanceOf(Promise);
      expect([admission.running, admission.queued]).toEqual([3, 4]);
      time.advance(250);
      (burst[0] as AdmissionTicket).end();
      expect([admission.running, admission.queued]).toEqual([3, 3]);
      for (const ticket of burst.slice(1, 3)) (ticket as AdmissionTicket).end();
      // Three searches and the read: 10 places.
      expect([admission.running, admission.queued]).toEqual([4, 0]);
      for (const ticket of await Promise.all([...burst.slice(3), read1])) ticket!.end();
      expect([admission.running, admission.queued]).toEqual([0, 0]);
    });

    it('halves after a slow request and lets the queue in only as far as the new limit', async () => {
      const time = clock();
      const admission = new Admission({ ...options(10_000), adaptive: { min: 2, max: 10, initial: 8, slow: 1000 } }, time.now);
      const running = Array.from({ length: 8 }, () => admission.enter(undefined, search) as AdmissionTicket);
      const queued = Array.from({ length: 3 }, () => admission.enter(undefined, search) as Promise<AdmissionTicket>);
      time.advance(1500);
      running[0]!.end();
      // The limit is now 4 with 7 at work: the queue waits.
      expect([admission.concurrency, admission.running, admission.queued]).toEqual([4, 7, 3]);
      // A search now takes 2 places (its route's recent time is that slow one's, capped at half the limit): with 3 at work, none fits.
      for (const ticket of running.slice(1, 5)) ticket.end();
      expect([admission.running, admission.queued]).toEqual([3, 3]);
      running[5]!.end();
      expect([admission.running, admission.queued]).toEqual([3, 2]);
      for (const ticket of running.slice(6)) ticket.end();
      expect([admission.running, admission.queued]).toEqual([2, 1]);
      const [first, second] = await Promise.all(queued.slice(0, 2));
      first!.end();
      (await queued[2]!).end();
      second!.end();
      expect([admission.running, admission.queued]).toEqual([0, 0]);
    });
  });
}
