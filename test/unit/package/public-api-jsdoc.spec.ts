import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function publicApiJsdocSpec(): void {
  const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
  const ENTRY_POINTS = ['src/index.ts', 'src/swagger/index.ts', 'src/back-office/index.ts', 'src/embedded/index.ts'];

  /** The names each entry point exports whose declaration's JSDoc lacks `@publicApi` (as @nestjs/swagger marks its public surface). */
  function unmarkedExports(): string[] {
    const program = ts.createProgram(
      ENTRY_POINTS.map((entry) => join(ROOT, entry)),
      {
        allowJs: false,
        noEmit: true,
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        target: ts.ScriptTarget.ES2023,
        experimentalDecorators: true,
      },
    );
    const checker = program.getTypeChecker();
    const unmarked: string[] = [];
    for (const entry of ENTRY_POINTS) {
      const module = checker.getSymbolAtLocation(program.getSourceFile(join(ROOT, entry))!)!;
      for (const exported of checker.getExportsOfModule(module)) {
        const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
        const declaration = symbol.declarations?.find((candidate) => candidate.getSourceFile().fileName.includes('/src/'));
        const node = declaration && ts.isVariableDeclaration(declaration) ? declaration.parent.parent : declaration;
        const tags = node ? ts.getJSDocTags(node).map((tag) => tag.tagName.text) : [];
        if (!tags.includes('publicApi')) unmarked.push(`${entry}: ${exported.name}`);
      }
    }
    return unmarked;
  }

  describe('the public surface', () => {
    it('marks every export of the entry points @publicApi in its JSDoc', () => {
      expect(unmarkedExports()).toEqual([]);
    });
  });
}
