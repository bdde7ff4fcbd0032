import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function packageSpec(): void {
  // What the published package promises (issue 9, item 13): the Node versions its own dependencies
  // need, a licence file, and no source maps pointing at sources it does not ship.
  const root = new URL('../../../', import.meta.url);
  const read = (path: string) => JSON.parse(readFileSync(new URL(path, root), 'utf8'));
  const pkg = read('package.json');

  /** The manifest of `name` as Node would find it from `directory` (exports maps may hide `./package.json`). */
  function manifestOf(name: string, directory: string): string {
    for (let dir = directory; ; dir = dirname(dir)) {
      const candidate = join(dir, 'node_modules', name, 'package.json');
      if (existsSync(candidate)) return candidate;
      if (dirname(dir) === dir) throw new Error(`${name} is not installed above ${directory}`);
    }
  }

  /** `>=22`, `>= 20.19.0`, `^22.1` → 22; undefined for a range we do not read. */
  function lowestMajor(range: string | undefined): number | undefined {
    const match = /^\s*(?:>=|\^|~)?\s*v?(\d+)/.exec(range ?? '');
    return match ? Number(match[1]) : undefined;
  }

  function engineOf(manifest: string): { name: string; node?: string } {
    const { name, engines } = JSON.parse(readFileSync(manifest, 'utf8'));
    return { name, node: engines?.node };
  }

  describe('the published package', () => {
    it('asks for the Node version that NestJS, Mongoose and their own dependencies declare', () => {
      const peers = ['@nestjs/common', '@nestjs/core', '@nestjs/mongoose', 'mongoose'];
      const declared = peers.flatMap((peer) => {
        const manifest = manifestOf(peer, fileURLToPath(root));
        const dependencies = Object.keys(JSON.parse(readFileSync(manifest, 'utf8')).dependencies ?? {});
        return [engineOf(manifest), ...dependencies.map((dependency) => engineOf(manifestOf(dependency, dirname(manifest))))];
      });
      const needed = Math.max(...declared.map((entry) => lowestMajor(entry.node) ?? 0));
      expect(lowestMajor(pkg.engines.node)).toBe(needed);
    });

    it('ships a licence file, named in its files', () => {
      expect(existsSync(new URL('LICENSE', root))).toBe(true);
      expect(pkg.files).toContain('LICENSE');
      expect(readFileSync(new URL('LICENSE', root), 'utf8')).toContain(pkg.license);
    });

    it('ships every file of the repository its docs link to (the trial of 2026-11-29 found ../BENCHMARKS.md missing from the package)', () => {
      const docs = readdirSync(new URL('docs/', root)).filter((name) => name.endsWith('.md'));
      const targets = new Set<string>();
      for (const name of docs) {
        // Relative links out of docs/: `](../BENCHMARKS.md#...)`; links within docs/ are shipped with it.
        for (const [, target] of readFileSync(new URL(`docs/${name}`, root), 'utf8').matchAll(/\]\(\.\.\/([^)#\s]+)/g)) targets.add(target);
      }
      expect(targets.size).toBeGreaterThan(0);
      // npm packs the README whatever `files` says.
      const shipped = [...pkg.files, 'README.md'];
      const missing = [...targets].filter((target) => !shipped.some((entry: string) => target === entry || target.startsWith(`${entry}/`)));
      expect(missing).toEqual([]);
    });

    it('publishes no source maps (it does not publish the sources they would point to)', () => {
      expect(read('tsconfig.build.json').compilerOptions.sourceMap).toBe(false);
      expect(pkg.files.some((entry: string) => entry.startsWith('src'))).toBe(false);
    });
  });
}
