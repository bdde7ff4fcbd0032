import { AllowedMethods } from '../../../src/filters/allowed-methods.util.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function allowedMethodsUtilSpec(): void {
  /** The `Allow` of a 405: the methods of the path the router would choose for the URL. */
  describe('AllowedMethods', () => {
    const allowed = new AllowedMethods(
      [
        { method: 'GET', path: '/appointment/upcoming' },
        { method: 'GET', path: '/appointment/:appointment_id' },
        { method: 'PUT', path: '/appointment/:appointment_id' },
        { method: 'DELETE', path: '/appointment/:appointment_id' },
        { method: 'POST', path: '/appointment/:appointment_id/notes' },
        { method: 'GET', path: '/appointment/:appointment_id/:note_id' },
      ],
      'api',
    );

    it('takes a literal path over a :param path matching the same URL', () => {
      expect(allowed.of('/api/appointment/upcoming')).toEqual(['GET', 'HEAD']);
    });

    it('answers the :param path for any other segment', () => {
      expect(allowed.of('/api/appointment/6f0000000000000000000000')).toEqual(['DELETE', 'GET', 'HEAD', 'PUT']);
    });

    it('prefers the path whose first differing segment is literal', () => {
      expect(allowed.of('/api/appointment/x/notes')).toEqual(['POST']);
      expect(allowed.of('/api/appointment/x/y')).toEqual(['GET', 'HEAD']);
    });

    it('is empty where no path matches', () => {
      expect(allowed.of('/appointment/upcoming')).toEqual([]);
    });
  });
}
