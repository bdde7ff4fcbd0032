import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import ts from 'typescript';
import { type CodeBlock, codeBlocks, DOC_FILES, ROOT } from '../../support/docs.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function docExamplesSpec(): void {
  /**
   * Every code block of the documentation marked as a complete example (`<!-- compile -->` on the
   * line before its fence) compiles under the project's tsconfig, `strict` included. Each page's
   * examples are written to test/.generated/docs/<page>/, a block named by its first line
   * (`// models.ts`) under that name, so the examples of one page import each other as the text
   * says (`./models.js`); a relative import the page does not define is the manual's block of that
   * name (README.md first). The package's imports are pointed at the sources.
   */
  const generated = join(ROOT, 'test', '.generated', 'docs');

  const blocks = DOC_FILES.flatMap((page) => codeBlocks(page));
  const examples = blocks.filter((block) => block.compile);

  /** The file name a block declares on its first line (`// models.ts`), if any. */
  function declaredName(block: CodeBlock): string | undefined {
    return /^\/\/ ([\w.-]+\.tsx?)\n/.exec(block.text)?.[1];
  }

  /** The block's text with the package's imports pointed at the sources, from a file in `folder`. */
  function withSources(text: string, folder: string): string {
    const src = relative(folder, join(ROOT, 'src')).replaceAll('\\', '/');
    return text
      .replaceAll("from 'nestjs-model-routes/back-office'", `from '${src}/back-office/index.js'`)
      .replaceAll("from 'nestjs-model-routes/openapi'", `from '${src}/swagger/index.js'`)
      .replaceAll("from 'nestjs-model-routes/embedded'", `from '${src}/embedded/index.js'`)
      .replaceAll("from 'nestjs-model-routes'", `from '${src}/index.js'`);
  }

  /** Writes the examples, one folder per page; answers the files written with the block each holds. */
  function writeExamples(): Map<string, CodeBlock> {
    rmSync(generated, { recursive: true, force: true });
    const files = new Map<string, CodeBlock>();
    const named = new Map<string, CodeBlock>();
    for (const block of blocks) {
      const name = declaredName(block);
      if (name && block.lang === 'ts' && !named.has(name)) named.set(name, block);
    }
    const write = (folder: string, name: string, block: CodeBlock): void => {
      const path = join(folder, name);
      if (files.has(path)) return;
      mkdirSync(folder, { recursive: true });
      writeFileSync(path, withSources(block.text, folder));
      files.set(path, block);
      for (const match of block.text.matchAll(/from '\.\/([\w.-]+)\.js'/g)) {
        const dependency = `${match[1]}.ts`;
        const own = examples.find((other) => other.page === block.page && declaredName(other) === dependency);
        const source = own ?? named.get(dependency);
        if (source) write(folder, dependency, source);
      }
    };
    for (const block of examples) {
      write(join(generated, basename(block.page, '.md')), declaredName(block) ?? `example-${block.line}.ts`, block);
    }
    return files;
  }

  /** The compiler's complaints about the examples under the project's options. */
  function typeErrors(files: Map<string, CodeBlock>): string[] {
    const config = ts.readConfigFile(join(ROOT, 'tsconfig.json'), ts.sys.readFile).config;
    const { options } = ts.parseJsonConfigFileContent(config, ts.sys, ROOT);
    const paths = [...files.keys()];
    const program = ts.createProgram(paths, { ...options, noEmit: true, noUnusedLocals: false, noUnusedParameters: false, types: ['node'] });
    return ts
      .getPreEmitDiagnostics(program)
      .filter((diagnostic) => diagnostic.file && files.has(diagnostic.file.fileName))
      .map((diagnostic) => {
        const block = files.get(diagnostic.file!.fileName)!;
        const { line } = diagnostic.file!.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
        return `${block.page}:${block.line + 1 + line}: TS${diagnostic.code} ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
      });
  }

  describe('the examples of the documentation', () => {
    it('marks its complete examples (the Quick start among them)', () => {
      expect(examples.length).toBeGreaterThanOrEqual(9);
      expect(examples.some((block) => block.page === 'README.md' && declaredName(block) === 'models.ts')).toBe(true);
      expect(examples.every((block) => block.lang === 'ts')).toBe(true);
    });

    it('compile under the project\'s tsconfig ("strict": true)', () => {
      expect(typeErrors(writeExamples())).toEqual([]);
    }, 180_000);
  });
}
