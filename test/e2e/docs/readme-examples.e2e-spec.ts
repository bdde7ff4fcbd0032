/**
 * The manual's examples, read from README.md and docs/ and run (issue 23 item 27): the Quick start's
 * models and the array of sub-documents of docs/models.md compile under `"strict": true` and serve what the text
 * says; the validation example's answer is the real one, field order included; the `Contact` DTO
 * example does what its comments say.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { createTestApp, type TestApp } from '../../support/app.js';
import { codeBlocks, MANUAL_PAGES, readDoc, ROOT as root } from '../../support/docs.js';
import { useEngine } from '../../support/engine.js';
import { expectError } from '../../support/expect-error.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function readmeExamplesSpec(): void {
  const generated = join(root, 'test', '.generated', 'readme');

  /** The manual's ```ts block whose first line is `// <file>` (README.md first, then docs/). */
  function tsBlock(file: string): string {
    const blocks = MANUAL_PAGES.flatMap((page) => codeBlocks(page)).filter((block) => block.lang === 'ts');
    const block = blocks.find(({ text }) => text.startsWith(`// ${file}\n`));
    if (!block) throw new Error(`No page of the manual has a \`\`\`ts block starting with // ${file}`);
    return block.text;
  }

  /** Writes a block of the manual as a module of the test tree, importing the library's sources where the manual imports the package. */
  function writeBlock(file: string): string {
    mkdirSync(generated, { recursive: true });
    const path = join(generated, file);
    writeFileSync(path, tsBlock(file).replaceAll("from 'nestjs-model-routes'", "from '../../../src/index.js'"));
    return path;
  }

  const files = ['models.ts', 'project.models.ts', 'contact.models.ts'];
  const paths = files.map(writeBlock);

  /** The compiler's complaints about `paths` under the project's options, `strict` included. */
  function typeErrors(): string[] {
    const config = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile).config;
    const { options } = ts.parseJsonConfigFileContent(config, ts.sys, root);
    const program = ts.createProgram(paths, { ...options, strict: true, noEmit: true, noUnusedLocals: false, types: ['node'] });
    return ts
      .getPreEmitDiagnostics(program)
      .filter((diagnostic) => diagnostic.file && paths.includes(diagnostic.file.fileName))
      .map(
        (diagnostic) =>
          `${diagnostic.file!.fileName.slice(generated.length + 1)}: TS${diagnostic.code} ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`,
      );
  }

  const engine = useEngine();
  let t: TestApp;

  beforeAll(async () => {
    const models = await import(paths[0]!);
    const projects = await import(paths[1]!);
    const contacts = await import(paths[2]!);
    t = await createTestApp(engine, { resources: [models.Entrepreneur, models.Company, projects.Project, contacts.Contact] });
  });
  afterAll(() => t?.close());

  describe('the Quick start', () => {
    it('compiles under "strict": true, the array of sub-documents and the Contact DTOs too', () => {
      expect(typeErrors()).toEqual([]);
    }, 120_000);

    it('creates a project with an array of sub-documents holding a reference, and checks each element as on create', async () => {
      const user = (await t.http().post('/user').send({ niceName: 'Ada' }).expect(201)).body._id;
      const created = await t
        .http()
        .post('/project')
        .send({ name: 'Engine', milestones: [{ title: 'Design', lead: user }] })
        .expect(201);
      expect(created.body.milestones).toEqual([{ _id: expect.stringMatching(/^[0-9a-f]{24}$/), title: 'Design', lead: user }]);
      const refused = await t
        .http()
        .post('/project')
        .send({ name: 'Engine', milestones: [{ due: '2026-01-01' }] });
      expectError(refused, 400, 'MR_VALIDATION_FAILED');
      expect(refused.body.details).toEqual([{ path: 'milestones.0.title', message: 'title is required' }]);
    });
  });

  describe('the validation example', () => {
    it('answers what docs/validation-and-serialization.md shows, in its order', async () => {
      const page = readDoc('docs/validation-and-serialization.md');
      const section = page.slice(page.indexOf('\n## Validation\n'));
      const body = /curl -s -X POST localhost:3000\/company .* -d '([^']*)'/.exec(section)![1]!;
      const answer = JSON.parse(/```json\n([\s\S]*?)```/.exec(section)![1]!);
      const response = await t.http().post('/company').set('Content-Type', 'application/json').send(body);
      expect(response.body).toEqual(answer);
      expect(JSON.stringify(response.body)).toBe(JSON.stringify(answer));
    });
  });

  describe('the Contact DTO example', () => {
    it('checks the email when one is given, and lets only the phone change', async () => {
      const created = await t.http().post('/contact').send({ name: 'Ada' }).expect(201);
      expectError(await t.http().post('/contact').send({ name: 'Ada', email: 'nope' }), 400, 'MR_VALIDATION_FAILED');
      await t.http().post('/contact').send({ name: 'Ada', email: 'ada@example.com' }).expect(201);
      const renamed = await t.http().put(`/contact/${created.body._id}`).send({ name: 'x' });
      expectError(renamed, 400, 'MR_VALIDATION_FAILED');
      expect(JSON.stringify(renamed.body)).toContain('property name should not exist');
      await t.http().put(`/contact/${created.body._id}`).send({ phone: '+4420' }).expect(200);
    });
  });
}
