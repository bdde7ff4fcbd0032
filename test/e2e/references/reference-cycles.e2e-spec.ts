/**
 * Cycles through a self-reference (issue 23, item 26): a field declared `acyclic` refuses a write
 * that would make a document its own ancestor, and a chain longer than its bound; a self-reference
 * without the option stores cycles, as documented.
 */
import { Category } from '../../fixtures/clinic-models.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { expectRefusedUnchanged } from '../../support/expect-refused.js';
import { useEngine } from '../../support/engine.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function referenceCyclesSpec(): void {
  const engine = useEngine();
  let t: TestApp;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    t = await createTestApp(engine, { resources: [Category] });
    // root ← a ← b ← c: a chain of four.
    let parent: string | undefined;
    for (const name of ['root', 'a', 'b', 'c']) {
      ids[name] = (await t.http().post('/category').send({ name, parent }).expect(201)).body._id;
      parent = ids[name];
    }
    ids.other = (await t.http().post('/category').send({ name: 'other' }).expect(201)).body._id;
  });
  afterAll(() => t?.close());

  async function expectCycle(id: string, body: Record<string, unknown>, pattern: RegExp): Promise<void> {
    for (const method of ['patch', 'put'] as const) {
      await expectRefusedUnchanged(t.connection, () => t.http()[method](`/category/${id}`).send(body), {
        status: 400,
        code: 'MR_REFERENCE_CYCLE',
        details: [{ path: 'parent', message: expect.stringMatching(pattern) }],
      });
    }
  }

  describe('a self-reference declared { acyclic: { maxDepth: 3 } }', () => {
    it('refuses a category as its own parent', async () => {
      await expectCycle(ids.other, { parent: ids.other }, new RegExp(`^parent would make a cycle: ${ids.other} → ${ids.other}$`));
    });

    it('refuses A → B → A, naming the chain', async () => {
      await expectCycle(ids.root, { parent: ids.a }, new RegExp(`^parent would make a cycle: ${ids.root} → ${ids.a} → ${ids.root}$`));
    });

    it('refuses a write whose chain is longer than maxDepth, naming the bound', async () => {
      await expectCycle(ids.other, { parent: ids.c }, /^parent leads to a chain longer than 3 \(acyclic\.maxDepth\)/);
    });

    it('accepts a parent whose chain ends within the bound, and clearing it', async () => {
      await t.http().patch(`/category/${ids.other}`).send({ parent: ids.b }).expect(200);
      await t.http().patch(`/category/${ids.other}`).send({ parent: null }).expect(200);
    });
  });

  it('stores a cycle through a self-reference without the option (seeAlso)', async () => {
    await t.http().patch(`/category/${ids.root}`).send({ seeAlso: ids.a }).expect(200);
    await t.http().patch(`/category/${ids.a}`).send({ seeAlso: ids.root }).expect(200);
  });
}
