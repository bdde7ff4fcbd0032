import { existsSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { anchorsOf, DOC_FILES, headingSlug, proseOf, readDoc, ROOT } from '../../support/docs.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function docLinksSpec(): void {
  /**
   * Every relative link of the documentation resolves: its file (or folder) exists, and its
   * `#anchor` names a heading of the page it points to, by GitHub's rules. No network: links with a
   * scheme (`https:`, `mailto:`) are not followed.
   */
  interface Link {
    page: string;
    line: number;
    target: string;
  }

  /** The links of a page's prose (code blocks left out): inline `[text](target)` and reference definitions `[name]: target`. */
  function linksOf(page: string): Link[] {
    const links: Link[] = [];
    proseOf(readDoc(page))
      .split('\n')
      .forEach((text, index) => {
        const line = text.replace(/`[^`]*`/g, '');
        for (const match of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) links.push({ page, line: index + 1, target: match[1]! });
        const definition = /^\s{0,3}\[[^\]]+\]:\s+<?(\S+?)>?(?:\s+"[^"]*")?\s*$/.exec(line);
        if (definition) links.push({ page, line: index + 1, target: definition[1]! });
      });
    return links;
  }

  /** Why a link does not resolve, or undefined when it does. */
  function brokenBecause({ page, target }: Link): string | undefined {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined;
    const [path = '', anchor] = target.split('#', 2) as [string, string | undefined];
    const file = path === '' ? page : normalize(join(dirname(page), decodeURI(path)));
    if (file.startsWith('..')) return `${file} is outside the repository`;
    if (!existsSync(join(ROOT, file))) return `${file} does not exist`;
    if (anchor === undefined) return undefined;
    if (!file.endsWith('.md')) return `#${anchor} points into ${file}, which has no headings`;
    return anchorsOf(readDoc(file)).has(decodeURIComponent(anchor)) ? undefined : `${file} has no heading #${anchor}`;
  }

  describe('the links of the documentation', () => {
    const links = DOC_FILES.flatMap(linksOf);

    it('finds the links it checks (the reader is not blind)', () => {
      expect(links.filter((link) => link.page === 'README.md').length).toBeGreaterThan(20);
      expect(links.some((link) => link.target.includes('#'))).toBe(true);
    });

    it.each(DOC_FILES)('every relative link and #anchor of %s resolves', (page) => {
      const broken = links
        .filter((link) => link.page === page)
        .map((link) => [link, brokenBecause(link)] as const)
        .filter(([, reason]) => reason !== undefined)
        .map(([link, reason]) => `${link.page}:${link.line} (${link.target}): ${reason}`);
      expect(broken).toEqual([]);
    });
  });

  describe("the link checker's rules", () => {
    it("makes GitHub's anchors", () => {
      expect(headingSlug('Soak and faults (issue 13)')).toBe('soak-and-faults-issue-13');
      expect(headingSlug('`@FileProp()` options')).toBe('fileprop-options');
      expect(headingSlug('The database: tests and the sample app')).toBe('the-database-tests-and-the-sample-app');
      expect(headingSlug('Links to [a page](x.md) and_more')).toBe('links-to-a-page-and_more');
      expect(headingSlug('GET - one')).toBe('get---one');
    });

    it('numbers repeated headings and ignores headings inside code blocks', () => {
      const anchors = anchorsOf('# A\n\n## Notes\n\n```md\n## Hidden\n```\n\n## Notes\n');
      expect([...anchors]).toEqual(['a', 'notes', 'notes-1']);
    });

    it('reports a missing file and a missing anchor, and leaves URLs alone', () => {
      expect(brokenBecause({ page: 'README.md', line: 1, target: 'docs/no-such-page.md' })).toBe('docs/no-such-page.md does not exist');
      expect(brokenBecause({ page: 'docs/routes.md', line: 1, target: '../README.md#no-such-heading' })).toBe('README.md has no heading #no-such-heading');
      expect(brokenBecause({ page: 'docs/routes.md', line: 1, target: '#no-such-heading' })).toBe('docs/routes.md has no heading #no-such-heading');
      expect(brokenBecause({ page: 'README.md', line: 1, target: 'https://example.com/nowhere' })).toBeUndefined();
      expect(brokenBecause({ page: 'README.md', line: 1, target: 'docs/routes.md#references-on-delete' })).toBeUndefined();
    });
  });
}
