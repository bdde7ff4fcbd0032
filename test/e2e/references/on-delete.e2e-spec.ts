/**
 * DESIGN §4: what a delete does to the documents that reference the deleted one, chosen per
 * reference field with `onDelete` next to its `ref`: `ignore` (the default: references dangle),
 * `restrict` (409 MR_REFERENCED, nothing deleted), `nullify` (the field set to null) and `pull`
 * (the identifier pulled from the array), the last two incrementing the version of each document
 * they change. Restrict is checked first, then the references are cleaned, then the document is
 * deleted: a delete interrupted in between leaves the target in place, and a retry converges.
 */
import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { MongooseModule } from '@nestjs/mongoose';
import { Types } from 'mongoose';
import {
  GeneratedResource,
  getModelRepositoryToken,
  ModelRepository,
  ModelRoutesConfigError,
  ModelRoutesException,
  ModelRoutesModule,
  type ModelRoutesModuleOptions,
} from '../../../src/index.js';
import { bootTestApp, type TestApp } from '../../support/app.js';
import { useEngine } from '../../support/engine.js';
import { expectError } from '../../support/expect-error.js';
import { MISSING_ID } from '../../support/ids.js';
import { pollUntil } from '../../support/poll.js';
import { referenceLocksOfProcess } from '../../../src/references/reference-locks.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function onDeleteSpec(): void {
  const engine = useEngine();

  /** The referenced model, at `/user` as in the spec. Its schema fails the next `findOneAndDelete` on demand. */
  @GeneratedResource({ path: 'user', plural: 'users' })
  @Schema()
  class Person {
    @Prop({ required: true }) niceName!: string;
    /** A model that references itself: the deleted document's own reference is left alone. */
    @Prop({ type: Types.ObjectId, ref: 'Person', onDelete: 'nullify' }) mentor?: Types.ObjectId;
  }
  const PersonSchema = SchemaFactory.createForClass(Person);
  let failNextDelete = false;
  PersonSchema.pre('findOneAndDelete', async function () {
    await held.delete?.();
    if (!failNextDelete) return;
    failNextDelete = false;
    throw new Error('interrupted between the cleanup and the delete');
  });

  /**
   * Holds the next delete of a Person (after its references are counted, before it deletes) or the
   * next save of a Venture (after its references are checked, before it writes): `reached` settles
   * when the step is reached, and the step goes on when `release()` is called.
   */
  const held: Partial<Record<'delete' | 'save', () => Promise<void>>> = {};
  function holdNext(step: 'delete' | 'save'): { reached: Promise<void>; release: () => void } {
    let reach!: () => void;
    let release!: () => void;
    const reached = new Promise<void>((resolve) => (reach = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    held[step] = () => {
      delete held[step];
      reach();
      return released;
    };
    return { reached, release };
  }

  /** Settles once a write of this process waits for another's lock: the held step is what it waits for. */
  const someWriteWaits = () =>
    pollUntil(
      async () => referenceLocksOfProcess.waiting,
      (waiting) => waiting > 0,
      60_000,
    );
  const person = { resource: Person, schema: PersonSchema };

  /** The default: references dangle. */
  @GeneratedResource()
  @Schema()
  class Shop {
    @Prop({ required: true }) name!: string;
    @Prop({ type: Types.ObjectId, ref: 'Person' }) owner?: Types.ObjectId;
  }

  /** `restrict` on a single reference... */
  @GeneratedResource()
  @Schema()
  class Venture {
    @Prop({ required: true }) name!: string;
    @Prop({ type: Types.ObjectId, ref: 'Person', required: true, onDelete: 'restrict' }) founder!: Types.ObjectId;
  }
  const VentureSchema = SchemaFactory.createForClass(Venture);
  VentureSchema.pre('save', async function () {
    await held.save?.();
  });
  const venture = { resource: Venture, schema: VentureSchema };

  /** ...and on an array of references, on another model. */
  @GeneratedResource()
  @Schema()
  class Board {
    @Prop({ required: true }) name!: string;
    @Prop({ type: [{ type: Types.ObjectId, ref: 'Person' }], onDelete: 'restrict' }) members?: Types.ObjectId[];
  }

  /** A model that is not a resource, registered with MongooseModule.forFeature, restricting too. */
  @Schema()
  class AuditEntry {
    @Prop() action?: string;
    @Prop({ type: Types.ObjectId, ref: 'Person', onDelete: 'restrict' }) actor?: Types.ObjectId;
  }
  const AuditEntrySchema = SchemaFactory.createForClass(AuditEntry);

  /** `nullify` on a single reference, `pull` on arrays (on the element's options, and on the array's). */
  @GeneratedResource()
  @Schema({ timestamps: true })
  class Project {
    @Prop({ required: true }) name!: string;
    @Prop({ type: Types.ObjectId, ref: 'Person', onDelete: 'nullify' }) lead?: Types.ObjectId;
    @Prop({ type: [{ type: Types.ObjectId, ref: 'Person', onDelete: 'pull' }] }) members?: Types.ObjectId[];
  }

  @GeneratedResource()
  @Schema()
  class Guild {
    @Prop({ required: true }) name!: string;
    @Prop({ type: [{ type: Types.ObjectId, ref: 'Person' }], onDelete: 'pull' }) members?: Types.ObjectId[];
  }

  async function boot(options: ModelRoutesModuleOptions, imports: Parameters<typeof bootTestApp>[1]['imports'] = []): Promise<TestApp> {
    return bootTestApp(engine, { modelRoutes: ModelRoutesModule.forRoot(options), imports });
  }

  const post = async (t: TestApp, path: string, body: object): Promise<string> => (await t.http().post(path).send(body).expect(201)).body._id;

  describe("onDelete: 'ignore' (the default)", () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await boot({ resources: [person, Shop] });
    });

    it('deletes the user and leaves the reference dangling: the forward route answers MR_REFERENCE_BROKEN', async () => {
      const ada = await post(t, '/user', { niceName: 'Ada' });
      const shop = await post(t, '/shop', { name: 'Corner', owner: ada });
      await t.http().delete(`/user/${ada}`).expect(200);
      expect((await t.http().get(`/shop/${shop}`).expect(200)).body.owner).toBe(ada);
      expectError(await t.http().get(`/shop/${shop}/owner`), 404, 'MR_REFERENCE_BROKEN');
    });
  });

  describe("onDelete: 'restrict'", () => {
    let t: TestApp;
    let ada: string;
    let ventures: string[];
    let board: string;
    beforeAll(async () => {
      t = await boot({ resources: [person, venture, Board] }, [MongooseModule.forFeature([{ name: AuditEntry.name, schema: AuditEntrySchema }])]);
    });
    beforeEach(async () => {
      await Promise.all(Object.values(t.connection.models).map((model) => model.deleteMany({})));
      ada = await post(t, '/user', { niceName: 'Ada' });
      const bob = await post(t, '/user', { niceName: 'Bob' });
      ventures = [await post(t, '/venture', { name: 'Engines', founder: ada }), await post(t, '/venture', { name: 'Looms', founder: ada })];
      await post(t, '/venture', { name: 'Other', founder: bob });
      board = await post(t, '/board', { name: 'Trustees', members: [bob, ada] });
    });

    it('answers 409 MR_REFERENCED counting the references of every field and model, and deletes nothing', async () => {
      const response = await t.http().delete(`/user/${ada}`);
      expectError(response, 409, 'MR_REFERENCED');
      expect(response.body.message).toBe(
        `Person '${ada}' cannot be deleted: 3 documents still reference it (Venture.founder: 2, Board.members: 1); nothing was deleted`,
      );
      expect(response.body.details).toEqual([
        { path: 'Venture.founder', message: '2 Venture documents reference it' },
        { path: 'Board.members', message: '1 Board document references it' },
      ]);
      await t.http().get(`/user/${ada}`).expect(200);
      expect((await t.http().get(`/board/${board}`).expect(200)).body.members).toHaveLength(2);
    });

    it('counts the references of a model registered with MongooseModule.forFeature', async () => {
      await t.connection.model('AuditEntry').create({ action: 'login', actor: new Types.ObjectId(ada) });
      const response = await t.http().delete(`/user/${ada}`);
      expectError(response, 409, 'MR_REFERENCED');
      expect(response.body.details).toContainEqual({ path: 'AuditEntry.actor', message: '1 AuditEntry document references it' });
    });

    it('deletes once the references are gone', async () => {
      await t.http().delete(`/board/${board}/members/${ada}`).expect(200);
      for (const venture of ventures) await t.http().delete(`/venture/${venture}`).expect(200);
      await t.http().delete(`/user/${ada}`).expect(200);
      await t.http().get(`/user/${ada}`).expect(404);
    });

    it('a user that nothing references is deleted', async () => {
      const cy = await post(t, '/user', { niceName: 'Cy' });
      await t.http().delete(`/user/${cy}`).expect(200);
    });

    describe('a reference written while its target is deleted, in one process', () => {
      it('a create naming a person whose delete is under way waits for it, then answers 400 MR_REFERENCE_NOT_FOUND: nothing dangles', async () => {
        const cy = await post(t, '/user', { niceName: 'Cy' });
        const deletion = holdNext('delete');
        const deleting = t
          .http()
          .delete(`/user/${cy}`)
          .then((response) => response);
        await deletion.reached; // the references are counted: none
        const creating = t
          .http()
          .post('/venture')
          .send({ name: 'Late', founder: cy })
          .then((response) => response);
        await Promise.race([creating, someWriteWaits()]);
        deletion.release();
        const [deleted, created] = await Promise.all([deleting, creating]);
        expect(deleted.status).toBe(200);
        expectError(created, 400, 'MR_REFERENCE_NOT_FOUND');
        expect(await t.connection.model('Venture').countDocuments({ founder: new Types.ObjectId(cy) })).toBe(0);
      });

      it('a delete of a person that a create under way names waits for it, then answers 409 MR_REFERENCED: nothing dangles', async () => {
        const cy = await post(t, '/user', { niceName: 'Cy' });
        const saving = holdNext('save');
        const creating = t
          .http()
          .post('/venture')
          .send({ name: 'Early', founder: cy })
          .then((response) => response);
        await saving.reached; // the founder is checked: it exists
        const deleting = t
          .http()
          .delete(`/user/${cy}`)
          .then((response) => response);
        await Promise.race([deleting, someWriteWaits()]);
        saving.release();
        const [created, deleted] = await Promise.all([creating, deleting]);
        expect(created.status).toBe(201);
        expectError(deleted, 409, 'MR_REFERENCED');
        await t.http().get(`/user/${cy}`).expect(200);
        await t.http().get(`/venture/${created.body._id}/founder`).expect(200);
      });

      it('writes naming one person do not wait for each other: a second create goes through while the first is held', async () => {
        const cy = await post(t, '/user', { niceName: 'Cy' });
        const saving = holdNext('save');
        const first = t
          .http()
          .post('/venture')
          .send({ name: 'First', founder: cy })
          .then((response) => response);
        await saving.reached;
        const second = await t.http().post('/venture').send({ name: 'Second', founder: cy });
        saving.release();
        expect([(await first).status, second.status]).toEqual([201, 201]);
      });

      it(
        'a relationship add (POST /board/:board_id/members/:user_id) naming a person whose delete is under way waits, then answers 404: ' + 'nothing dangles',
        async () => {
          const cy = await post(t, '/user', { niceName: 'Cy' });
          const deletion = holdNext('delete');
          const deleting = t
            .http()
            .delete(`/user/${cy}`)
            .then((response) => response);
          await deletion.reached;
          const adding = t
            .http()
            .post(`/board/${board}/members/${cy}`)
            .then((response) => response);
          await Promise.race([adding, someWriteWaits()]);
          deletion.release();
          const [deleted, added] = await Promise.all([deleting, adding]);
          expect(deleted.status).toBe(200);
          expectError(added, 404, 'MR_NOT_FOUND');
          expect((await t.http().get(`/board/${board}`).expect(200)).body.members).not.toContain(cy);
        },
      );
    });

    it('applies to repository.delete() called by custom code', async () => {
      const users = t.app.get<ModelRepository>(getModelRepositoryToken(Person));
      const refused = await users.delete(ada).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(ModelRoutesException);
      expect((refused as ModelRoutesException).code).toBe('MR_REFERENCED');
      expect(await users.findOne(ada)).not.toBeNull();
    });
  });

  describe("onDelete: 'nullify' and 'pull'", () => {
    let t: TestApp;
    let ada: string;
    let bob: string;
    beforeAll(async () => {
      t = await boot({ resources: [person, Project, Guild] });
    });
    beforeEach(async () => {
      await Promise.all(Object.values(t.connection.models).map((model) => model.deleteMany({})));
      ada = await post(t, '/user', { niceName: 'Ada' });
      bob = await post(t, '/user', { niceName: 'Bob' });
    });

    it("nullify sets the field to null and changes the referencing document's version (ETag)", async () => {
      const project = await post(t, '/project', { name: 'Engine', lead: ada, members: [] });
      const other = await post(t, '/project', { name: 'Loom', lead: bob });
      const {
        headers: { etag: before },
        body: { updatedAt },
      } = await t.http().get(`/project/${project}`).expect(200);
      const untouched = (await t.http().get(`/project/${other}`).expect(200)).headers.etag;
      await t.http().delete(`/user/${ada}`).expect(200);
      const after = await t.http().get(`/project/${project}`).expect(200);
      expect(after.body.lead).toBeNull();
      expect(after.headers.etag).not.toBe(before);
      expect(after.body.updatedAt > updatedAt).toBe(true);
      // The old tag no longer matches a write: a client holding it reads the document again.
      expectError(await t.http().patch(`/project/${project}`).set('If-Match', before).send({ name: 'x' }), 412, 'MR_PRECONDITION_FAILED');
      const kept = await t.http().get(`/project/${other}`).expect(200);
      expect([kept.body.lead, kept.headers.etag]).toEqual([bob, untouched]);
    });

    it('pull removes the identifier from the arrays, keeping the others (element and array options alike)', async () => {
      const project = await post(t, '/project', { name: 'Engine', members: [ada, bob] });
      const guild = await post(t, '/guild', { name: 'Makers', members: [bob, ada] });
      const before = (await t.http().get(`/guild/${guild}`).expect(200)).headers.etag;
      await t.http().delete(`/user/${ada}`).expect(200);
      expect((await t.http().get(`/project/${project}`).expect(200)).body.members).toEqual([bob]);
      const after = await t.http().get(`/guild/${guild}`).expect(200);
      expect(after.body.members).toEqual([bob]);
      expect(after.headers.etag).not.toBe(before);
      expect((await t.http().get(`/guild/${guild}/members`).expect(200)).body.status.missing).toEqual([]);
    });

    it("a model's reference to itself: the others' are nullified, the deleted document's own is left to the delete", async () => {
      const carol = await post(t, '/user', { niceName: 'Carol' });
      await t.http().patch(`/user/${carol}`).send({ mentor: carol }).expect(200);
      await t.http().patch(`/user/${bob}`).send({ mentor: carol }).expect(200);
      // With If-Match: the cleanup does not change the version of the document being deleted.
      const etag = (await t.http().get(`/user/${carol}`).expect(200)).headers.etag;
      await t.http().delete(`/user/${carol}`).set('If-Match', etag).expect(200);
      expect((await t.http().get(`/user/${bob}`).expect(200)).body.mentor).toBeNull();
    });

    it('a delete refused by If-Match (412) or of a missing document (404) cleans nothing', async () => {
      const project = await post(t, '/project', { name: 'Engine', lead: ada, members: [ada] });
      const stale = (await t.http().get(`/user/${ada}`).expect(200)).headers.etag;
      await t.http().patch(`/user/${ada}`).send({ niceName: 'Ada L.' }).expect(200);
      expectError(await t.http().delete(`/user/${ada}`).set('If-Match', stale), 412, 'MR_PRECONDITION_FAILED');
      expectError(await t.http().delete(`/user/${MISSING_ID}`), 404, 'MR_NOT_FOUND');
      expect((await t.http().get(`/project/${project}`).expect(200)).body).toMatchObject({ lead: ada, members: [ada] });
    });

    it('a delete interrupted after the cleanup leaves the user in place, references gone; the retry answers 200', async () => {
      const project = await post(t, '/project', { name: 'Engine', lead: ada, members: [ada, bob] });
      const guild = await post(t, '/guild', { name: 'Makers', members: [ada] });
      const etag = (await t.http().get(`/user/${ada}`).expect(200)).headers.etag;
      failNextDelete = true;
      expectError(await t.http().delete(`/user/${ada}`).set('If-Match', etag), 500, 'MR_INTERNAL');
      await t.http().get(`/user/${ada}`).expect(200);
      expect((await t.http().get(`/project/${project}`).expect(200)).body).toMatchObject({ lead: null, members: [bob] });
      expect((await t.http().get(`/guild/${guild}`).expect(200)).body.members).toEqual([]);

      const retried = await t.http().delete(`/user/${ada}`).set('If-Match', etag).expect(200);
      expect(retried.body).toEqual({ _id: ada, niceName: 'Ada' });
      await t.http().get(`/user/${ada}`).expect(404);
      expect((await t.http().get(`/project/${project}`).expect(200)).body).toMatchObject({ lead: null, members: [bob] });
      expect((await t.http().get(`/guild/${guild}`).expect(200)).body.members).toEqual([]);
    });

    it('applies to repository.delete() called by custom code', async () => {
      const project = await post(t, '/project', { name: 'Engine', lead: ada });
      await t.app.get<ModelRepository>(getModelRepositoryToken(Person)).delete(ada);
      expect((await t.http().get(`/project/${project}`).expect(200)).body.lead).toBeNull();
    });
  });

  describe('a wrong onDelete stops the start, naming the field and the fix', () => {
    @GeneratedResource()
    @Schema()
    class UnknownMode {
      @Prop({ type: Types.ObjectId, ref: 'Person', onDelete: 'cascade' }) owner?: Types.ObjectId;
    }

    @GeneratedResource()
    @Schema()
    class NullifiedArray {
      @Prop({ type: [{ type: Types.ObjectId, ref: 'Person' }], onDelete: 'nullify' }) owners?: Types.ObjectId[];
    }

    @GeneratedResource()
    @Schema()
    class PulledSingle {
      @Prop({ type: Types.ObjectId, ref: 'Person', onDelete: 'pull' }) owner?: Types.ObjectId;
    }

    @GeneratedResource()
    @Schema()
    class NullifiedRequired {
      @Prop({ type: Types.ObjectId, ref: 'Person', required: true, onDelete: 'nullify' }) owner!: Types.ObjectId;
    }

    @GeneratedResource()
    @Schema()
    class NotAReference {
      @Prop({ onDelete: 'restrict' }) name?: string;
    }

    @GeneratedResource()
    @Schema()
    class GivenTwice {
      @Prop({ type: [{ type: Types.ObjectId, ref: 'Person', onDelete: 'pull' }], onDelete: 'restrict' }) owners?: Types.ObjectId[];
    }

    it.each([
      [UnknownMode, 'UnknownMode.owner', `onDelete: "cascade" is not one of 'ignore', 'restrict', 'nullify', 'pull'`],
      [NullifiedArray, 'NullifiedArray.owners', "use 'pull'"],
      [PulledSingle, 'PulledSingle.owner', "use 'nullify' (or 'restrict')"],
      [NullifiedRequired, 'NullifiedRequired.owner', 'cannot apply to a required field'],
      [NotAReference, 'NotAReference.name', 'reference fields only'],
      [GivenTwice, 'GivenTwice.owners', 'given twice'],
    ] as const)('%p', (resource, where, fix) => {
      let error: unknown;
      try {
        ModelRoutesModule.forRoot({ resources: [person, resource] });
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ModelRoutesConfigError);
      expect((error as ModelRoutesConfigError).code).toBe('MR_CONFIG_INVALID_OPTION');
      expect((error as Error).message).toContain(`${where}: `);
      expect((error as Error).message).toContain(fix);
    });

    it('on a model registered with MongooseModule.forFeature, when the app initialises', async () => {
      @Schema()
      class BadAudit {
        @Prop({ type: Types.ObjectId, ref: 'Person', onDelete: 'pull' }) actor?: Types.ObjectId;
      }
      const error = await boot({ resources: [person] }, [
        MongooseModule.forFeature([{ name: BadAudit.name, schema: SchemaFactory.createForClass(BadAudit) }]),
      ]).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect((error as ModelRoutesConfigError).code).toBe('MR_CONFIG_INVALID_OPTION');
      expect((error as Error).message).toContain('BadAudit.actor');
    });
  });
}
