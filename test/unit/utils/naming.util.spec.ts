import { idParamName, kebabCase, pascalCase, pluralPath } from '../../../src/utils/naming.util.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function namingUtilSpec(): void {
  describe('kebabCase', () => {
    it.each([
      ['Company', 'company'],
      ['BlogPost', 'blog-post'],
      ['HTTPLog', 'http-log'],
      ['XMLHttpRequest', 'xml-http-request'],
      ['Entrepreneur', 'entrepreneur'],
      ['Order2Item', 'order2-item'],
      ['snake_case_name', 'snake-case-name'],
      ['with space', 'with-space'],
    ])('%s → %s', (input, expected) => {
      expect(kebabCase(input)).toBe(expected);
    });
  });

  describe('pluralPath', () => {
    it.each([
      ['company', 'companies'],
      ['blog-post', 'blog-posts'],
      ['user', 'users'],
      ['person', 'people'],
      ['blog-category', 'blog-categories'],
      ['http-log', 'http-logs'],
    ])('%s → %s', (input, expected) => {
      expect(pluralPath(input)).toBe(expected);
    });

    it('pluralises only the last word of a kebab-case path', () => {
      expect(pluralPath('person-company')).toBe('person-companies');
    });
  });

  describe('idParamName', () => {
    it.each([
      ['company', 'company_id'],
      ['user', 'user_id'],
      ['blog-post', 'blog_post_id'],
      ['http-log', 'http_log_id'],
      ['a--b', 'a_b_id'],
    ])('%s → %s', (input, expected) => {
      expect(idParamName(input)).toBe(expected);
    });
  });

  describe('pascalCase', () => {
    it.each([
      ['owner', 'Owner'],
      ['co_owner', 'CoOwner'],
      ['co-owner', 'CoOwner'],
      ['mainContact', 'MainContact'],
      ['profile.owner', 'ProfileOwner'],
      ['_private', 'Private'],
      ['', ''],
    ])('%j → %j', (input, expected) => {
      expect(pascalCase(input)).toBe(expected);
    });
  });
}
