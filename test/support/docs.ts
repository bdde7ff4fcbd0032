/**
 * The documentation as the tests read it: README.md, CONTRIBUTING.md, CHANGELOG.md, BENCHMARKS.md
 * and the manual's pages in docs/. The error-code table, the public API, the examples and the link
 * check read them through here, so a fact moved from one page to another is still found.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The manual's pages, relative to the root: README.md first, then docs/*.md in name order. */
export const MANUAL_PAGES: readonly string[] = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((file) => file.endsWith('.md'))
    .sort()
    .map((file) => `docs/${file}`),
];

/** Every Markdown file whose links are checked: the manual and the repository's other documents. */
export const DOC_FILES: readonly string[] = [...MANUAL_PAGES, 'CONTRIBUTING.md', 'CHANGELOG.md', 'BENCHMARKS.md'];

/** The text of a document, by its path relative to the root. */
export function readDoc(path: string): string {
  return readFileSync(join(ROOT, path), 'utf8');
}

/** The README and every page of docs/, one after the other (for "is it documented anywhere"). */
export function readManual(): string {
  return MANUAL_PAGES.map(readDoc).join('\n');
}

/** A fenced code block of a document. */
export interface CodeBlock {
  /** The document, relative to the root. */
  page: string;
  /** The fence's info string (`ts`, `json`, `bash`...), empty when none. */
  lang: string;
  /** The block's text, without the fences. */
  text: string;
  /** The 1-based line of the opening fence. */
  line: number;
  /** Whether `<!-- compile -->` stands on the line before the fence: a complete example that must compile. */
  compile: boolean;
}

/** The fenced code blocks of a document, in order. */
export function codeBlocks(page: string, text = readDoc(page)): CodeBlock[] {
  const lines = text.split('\n');
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,})(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const end = lines.findIndex((line, j) => j > i && line.startsWith(open[1]!) && line.trim() === open[1]);
    const close = end === -1 ? lines.length : end;
    const previous = lines
      .slice(0, i)
      .reverse()
      .find((line) => line.trim() !== '');
    blocks.push({
      page,
      lang: open[2]!.trim().split(/\s+/)[0] ?? '',
      text: lines.slice(i + 1, close).join('\n') + '\n',
      line: i + 1,
      compile: previous?.trim() === '<!-- compile -->',
    });
    i = close;
  }
  return blocks;
}

/** The text of a document outside its fenced code blocks (each block's lines left empty, so line numbers hold). */
export function proseOf(text: string): string {
  let fence: string | undefined;
  return text
    .split('\n')
    .map((line) => {
      const marker = /^(`{3,})/.exec(line)?.[1];
      if (fence === undefined && marker) {
        fence = marker;
        return '';
      }
      if (fence !== undefined) {
        if (line.trim() === fence) fence = undefined;
        return '';
      }
      return line;
    })
    .join('\n');
}

/**
 * GitHub's anchor for a heading: the text without Markdown links' targets, lower-cased, every
 * character but letters, digits, `_`, `-` and spaces removed, spaces turned into `-`.
 */
export function headingSlug(heading: string): string {
  return heading
    .trim()
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}_\- ]/gu, '')
    .replaceAll(' ', '-');
}

/** The anchors of a document's headings, a repeated one numbered as GitHub does (`name`, `name-1`, ...), and of its `<a id>`/`<a name>` tags. */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const prose = proseOf(text);
  for (const match of prose.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const slug = headingSlug(match[1]!);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  for (const match of prose.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(match[1]!);
  return anchors;
}
