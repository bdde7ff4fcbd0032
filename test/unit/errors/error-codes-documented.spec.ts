import { CONFIG_ERROR_CODES, ERROR_CODES } from '../../../src/index.js';
import { readDoc } from '../../support/docs.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function errorCodesDocumentedSpec(): void {
  // Every code a client or a developer can meet is in the tables of docs/errors.md, with the same status
  // and meaning as in the code: adding a code without documenting it fails here.
  const readme = readDoc('docs/errors.md');

  describe('error codes are documented in docs/errors.md', () => {
    it.each(Object.entries(ERROR_CODES))('%s', (code, { status, description }) => {
      expect(readme).toContain(`| \`${code}\` | ${status === 0 ? 'any' : status} | ${description} |`);
    });

    it.each(Object.entries(CONFIG_ERROR_CODES))('%s', (code, description) => {
      expect(readme).toContain(`| \`${code}\` | ${description} |`);
    });

    it('documents no code that does not exist', () => {
      const documented = [...readme.matchAll(/^\| `(MR_[A-Z_]+)` \|/gm)].map((match) => match[1]);
      expect(documented.sort()).toEqual([...Object.keys(ERROR_CODES), ...Object.keys(CONFIG_ERROR_CODES)].sort());
    });
  });
}
