import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SPEC_FILE, specFilesUnder } from '../../support/suite.js';

const testRoot = join(dirname(fileURLToPath(import.meta.url)), '../..');

/** Every file of test/ whose name matches `pattern`, relative to test/. */
function filesMatching(pattern: RegExp): string[] {
  return readdirSync(testRoot, { recursive: true, encoding: 'utf8' })
    .filter((path) => pattern.test(path))
    .sort();
}

export function suitesSpec(): void {
  const suites = filesMatching(/\.suite\.ts$/);
  const specs = filesMatching(SPEC_FILE);

  /** The suites whose folder holds `spec`: the ones that run it. */
  const runnersOf = (spec: string) => suites.filter((suite) => !relative(dirname(suite), spec).startsWith('..'));

  it('finds the suites and the spec files (a check over nothing would pass)', () => {
    expect(suites).toEqual(expect.arrayContaining(['unit/unit.suite.ts', 'e2e/files/files.suite.ts']));
    expect(specs.length).toBeGreaterThan(100);
  });

  it('runs every spec file by exactly one suite: none is left out, none runs twice', () => {
    const wrong = specs.map((spec) => ({ spec, runners: runnersOf(spec) })).filter(({ runners }) => runners.length !== 1);
    expect(wrong).toEqual([]);
  });

  it('gives each suite the spec files below its folder, in a stable order', () => {
    const unit = specFilesUnder(join(testRoot, 'unit')).map((file) => relative(testRoot, file));
    expect(unit).toEqual(specs.filter((spec) => spec.startsWith('unit/')));
    expect(unit).toContain('unit/support/suites.spec.ts');
  });

  it('has every spec file export the one function that registers its tests, and call nothing at its top level', () => {
    const wrong = specs.filter((spec) => {
      const text = readFileSync(join(testRoot, spec), 'utf8');
      const registers = text.match(/^export function \w+Spec\(\): void \{$/gm) ?? [];
      // Past its imports, a spec file holds its function: a top-level hook or describe would run for every spec of the suite.
      const topLevelCalls = text.match(/^(describe|it|test|beforeAll|afterAll|beforeEach|afterEach|useEngine)\b/gm) ?? [];
      return registers.length !== 1 || topLevelCalls.length > 0;
    });
    expect(wrong).toEqual([]);
  });
}
