import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function optionalSwaggerSpec(): void {
  // `@nestjs/swagger` is an optional peer: only `nestjs-model-routes/openapi` (src/swagger/) may load it.
  const src = fileURLToPath(new URL('../../../src/', import.meta.url));
  const files = (readdirSync(src, { recursive: true }) as string[]).filter((file) => file.endsWith('.ts')).map((file) => join(src, file));
  const importsOf = (file: string) => [...readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)].map((match) => match[1]);
  const inSwagger = (file: string) => relative(src, file).startsWith('swagger/');

  describe('@nestjs/swagger stays optional', () => {
    it('is imported by src/swagger/ only', () => {
      const importers = files.filter((file) => importsOf(file).some((name) => name === '@nestjs/swagger' || name.startsWith('@nestjs/swagger/')));
      expect(importers.length).toBeGreaterThan(0);
      expect(importers.filter((file) => !inSwagger(file)).map((file) => relative(src, file))).toEqual([]);
    });

    it('src/swagger/ is imported by nothing else in src/, and is the ./openapi export', () => {
      const outside = files.filter((file) => !inSwagger(file) && importsOf(file).some((name) => /(^|\/)swagger\//.test(name) && name.startsWith('.')));
      expect(outside.map((file) => relative(src, file))).toEqual([]);
      const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'));
      expect(pkg.exports['./openapi'].import).toBe('./dist/swagger/index.js');
      expect(pkg.peerDependenciesMeta['@nestjs/swagger'].optional).toBe(true);
    });

    it('deep-imports no package internals', () => {
      const deep = files.flatMap((file) =>
        importsOf(file)
          .filter((name) => /^(@nestjs\/[^/]+|class-transformer|class-validator|mongoose)\/./.test(name))
          .map((name) => `${relative(src, file)}: ${name}`),
      );
      expect(deep).toEqual([]);
    });
  });
}
