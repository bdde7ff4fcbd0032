import { locationOf } from '../../../src/factories/resource-controller.factory.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function locationSpec(): void {
  /** Issue 23 item 10: `Location` is a path built from the request's path, never a URL of a host the client named. */
  describe('locationOf', () => {
    it('appends the id to the path, without its query or trailing slashes, global prefixes kept', () => {
      expect(locationOf({ originalUrl: '/api/company?x=1' }, 'a b')).toBe('/api/company/a%20b');
      expect(locationOf({ url: '/company//' }, 7)).toBe('/company/7');
    });

    it('leaves out the scheme and host of a request line in absolute form', () => {
      expect(locationOf({ url: 'http://evil.example/company' }, 'x')).toBe('/company/x');
      expect(locationOf({ url: 'HTTPS://evil.example:8443/api/company?q=1' }, 'x')).toBe('/api/company/x');
      expect(locationOf({ url: 'http://evil.example' }, 'x')).toBe('/x');
    });

    it('never answers a reference to another host (a path starting with //)', () => {
      expect(locationOf({ url: '//evil.example/company' }, 'x')).toBe('/evil.example/company/x');
      expect(locationOf({ url: 'http://evil.example//other.example/company' }, 'x')).toBe('/other.example/company/x');
    });
  });
}
