/**
 * Runs the spec files under a folder in one Jest test file.
 *
 * Jest evaluates every test file in a fresh module registry: under `--experimental-vm-modules`,
 * each file loads NestJS, Mongoose, class-validator, both HTTP platforms and the library again,
 * seconds of CPU per file. So a spec file (`*.spec.ts`, `*.e2e-spec.ts`) registers its tests in one
 * exported function (`export function <name>Spec(): void`), and a suite file (`*.suite.ts`, the
 * only files Jest runs) calls those of every spec file under its folder, each inside a `describe`
 * named after the file's path: its hooks, its engine and its apps stay its own, as in a file of its
 * own. Run one spec file with `npm test -- <suite's folder> -t '<its describe name>'`.
 */
import { readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** A spec file's name: what Jest ran as a test file before suites, and runs now through one. */
export const SPEC_FILE = /\.(e2e-spec|spec)\.ts$/;

/** The spec files under `folder` (its subfolders included), sorted: the order they run in. */
export function specFilesUnder(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((path) => SPEC_FILE.test(path))
    .sort()
    .map((path) => join(folder, path));
}

/**
 * Registers, in a `describe` each, the tests of every spec file under the folder of `suiteUrl`
 * (the suite file's `import.meta.url`). A spec file must export exactly one function whose name
 * ends in `Spec`: one that exports none would run nothing, so it fails the suite instead.
 */
export async function runSpecsUnder(suiteUrl: string): Promise<void> {
  const folder = dirname(fileURLToPath(suiteUrl));
  for (const file of specFilesUnder(folder)) {
    const module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    const register = Object.entries(module).filter(([name, value]) => name.endsWith('Spec') && typeof value === 'function');
    const name = relative(folder, file).replace(SPEC_FILE, '');
    if (register.length !== 1) {
      throw new Error(
        `${relative(process.cwd(), file)}: a spec file exports one function named <name>Spec that registers its tests (found ${register.length})`,
      );
    }
    describe(name, register[0]![1] as () => void);
  }
}
