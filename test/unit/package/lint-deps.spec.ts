import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One broken rule in dependency-cruiser's JSON result. */
interface Violation {
  rule: { name: string; severity: string };
  from: string;
  to: string;
}

/** What `npm run lint:deps` finds in `cwd`: the same command and config, its result read as JSON (it exits non-zero on an error). */
function cruise(cwd: string): Promise<Violation[]> {
  const bin = join(cwd, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
  const args = [bin, 'src', '--config', '.dependency-cruiser.cjs', '--output-type', 'json'];
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { cwd, maxBuffer: 256 * 1024 * 1024 }, (_error, stdout, stderr) => {
      try {
        resolve((JSON.parse(stdout) as { summary: { violations: Violation[] } }).summary.violations);
      } catch {
        reject(new Error(`dependency-cruiser gave no JSON result in ${cwd}:\n${stderr || stdout}`));
      }
    });
  });
}

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function lintDepsSpec(): void {
  /**
   * Issue 40 item 3: `npm run lint:deps` fails on a back import, on a file in a folder that has no
   * line in LAYERS, and on the repository reaching for the request. Each is planted in a copy of
   * src/ (the real tree is never written), and the copy is cruised with the real config.
   */
  const root = fileURLToPath(new URL('../../../', import.meta.url));
  let copy: string;
  let onTree: Violation[];
  let onCopy: Violation[];

  /** The files planted in the copy, each with the rules it must break (none: it must pass). */
  const planted: Record<string, { text: string; breaks: string[] }> = {
    // A low room importing a high one.
    'src/utils/planted-back-import.ts': {
      text: "import { GeneratedController } from '../controllers/generated-controller.js';\nexport const planted = GeneratedController;\n",
      breaks: ['no-back-import-from-base'],
    },
    // A folder with no line in LAYERS, found three ways: it imports, it is imported, it is an orphan.
    'src/unlisted-room/imports.ts': { text: "import '../constants.js';\n", breaks: ['no-room-without-layer'] },
    'src/unlisted-room/imported.ts': { text: 'export const leaf = 1;\n', breaks: [] },
    'src/utils/planted-imports-unlisted.ts': {
      text: "import { leaf } from '../unlisted-room/imported.js';\nexport const planted = leaf;\n",
      breaks: ['no-room-without-layer'],
    },
    'src/unlisted-room/orphan.ts': { text: 'export const alone = 1;\n', breaks: ['no-room-without-layer'] },
    // The repository reaching for the request (a type-only import counts) and for an HTTP platform.
    'src/repository/planted-route-call.ts': {
      text: "import type { RouteCall } from '../call/route-call.js';\nexport type Planted = RouteCall;\n",
      breaks: ['repository-never-imports-http'],
    },
    'src/rules/planted-platform.ts': {
      text: "import { ExpressAdapter } from '@nestjs/platform-express';\nexport const planted = ExpressAdapter;\n",
      breaks: ['repository-never-imports-http'],
    },
    // What the repository may import from src/call: the call's context, not the request.
    'src/repository/planted-call-context.ts': {
      text: "import type { CallContext } from '../call/call-context.js';\nexport type Planted = CallContext;\n",
      breaks: [],
    },
  };

  beforeAll(async () => {
    copy = mkdtempSync(join(tmpdir(), 'model-routes-lint-deps-'));
    cpSync(join(root, 'src'), join(copy, 'src'), { recursive: true });
    for (const file of ['tsconfig.json', '.dependency-cruiser.cjs', 'package.json']) cpSync(join(root, file), join(copy, file));
    symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'), 'dir');
    for (const [file, { text }] of Object.entries(planted)) {
      mkdirSync(dirname(join(copy, file)), { recursive: true });
      writeFileSync(join(copy, file), text);
    }
    [onTree, onCopy] = await Promise.all([cruise(root), cruise(copy)]);
  }, 90_000);
  afterAll(() => copy && rmSync(copy, { recursive: true, force: true }));

  /** The names of the rules that `file` breaks (as the importer, or as the module itself). */
  const broken = (file: string) => [...new Set(onCopy.filter((violation) => violation.from === file).map((violation) => violation.rule.name))].sort();

  it('passes on the tree as it is, with the real config', () => {
    expect(onTree.map((violation) => `${violation.rule.name}: ${violation.from} → ${violation.to}`)).toEqual([]);
  });

  it('fails on a back import: src/utils/ importing src/controllers/', () => {
    expect(broken('src/utils/planted-back-import.ts')).toEqual(['no-back-import-from-base']);
  });

  it('fails on a file in an unlisted folder, whether it imports, is imported or neither', () => {
    expect(broken('src/unlisted-room/imports.ts')).toEqual(['no-room-without-layer']);
    expect(broken('src/utils/planted-imports-unlisted.ts')).toEqual(['no-room-without-layer']);
    expect(broken('src/unlisted-room/orphan.ts')).toEqual(['no-room-without-layer']);
  });

  it('fails on the repository importing src/call/route-call.ts, and on the rules importing an HTTP platform', () => {
    expect(broken('src/repository/planted-route-call.ts')).toEqual(['repository-never-imports-http']);
    expect(broken('src/rules/planted-platform.ts')).toEqual(['repository-never-imports-http']);
  });

  it("lets the repository import the call's context (call-context.ts)", () => {
    expect(broken('src/repository/planted-call-context.ts')).toEqual([]);
  });

  it('finds in the copy only what was planted there', () => {
    const unplanted = onCopy.filter((violation) => !(violation.from in planted));
    expect(unplanted.map((violation) => `${violation.rule.name}: ${violation.from} → ${violation.to}`)).toEqual([]);
    for (const [file, { breaks }] of Object.entries(planted)) expect([file, broken(file)]).toEqual([file, breaks]);
  });
}
