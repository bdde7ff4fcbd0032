import { ModelRoutesConfigError } from '../../../src/index.js';
import { backOfficeSettings } from '../../../src/back-office/back-office-settings.util.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function backOfficeSettingsUtilSpec(): void {
  describe('backOfficeSettings', () => {
    it('defaults to /admin, "Back office", a bearer token and no guards', () => {
      expect(backOfficeSettings()).toEqual({ path: 'admin', title: 'Back office', auth: { header: 'authorization', scheme: 'Bearer' }, guards: [] });
    });

    it('takes a literal path of several segments without its outer slashes, and a header in lower case', () => {
      const guard = { canActivate: () => true };
      expect(backOfficeSettings({ path: '/tools/data-admin_1/', title: ' Data ', auth: { header: 'X-Api-Key' }, guards: [guard] })).toEqual({
        path: 'tools/data-admin_1',
        title: 'Data',
        auth: { header: 'x-api-key' },
        guards: [guard],
      });
    });

    it.each(['', '/', ':id', 'admin/*', 'a//b', 'admin?x=1', 'adminé', '..', 'admin/./x', 'admin.html', 42])('refuses the path %j', (path) => {
      expect(() => backOfficeSettings({ path: path as string })).toThrow(ModelRoutesConfigError);
      expect(() => backOfficeSettings({ path: path as string })).toThrow(/^BackOfficeModule\.forRoot\(\): path is .*\[MR_CONFIG_INVALID_OPTION\]$/);
    });

    it.each([{ header: '' }, { header: 'x key' }, { header: 'x:key' }, {}, null])('refuses auth %j', (auth) => {
      expect(() => backOfficeSettings({ auth: auth as never })).toThrow(/auth\.header is .*give the name of an HTTP header/);
    });

    it('refuses a title that is not text, a scheme of several words, guards that are not guards, and unknown options', () => {
      expect(() => backOfficeSettings({ title: 3 as never })).toThrow(/title is 3/);
      expect(() => backOfficeSettings({ auth: { header: 'authorization', scheme: '' } })).toThrow(/auth\.scheme is ""/);
      expect(() => backOfficeSettings({ guards: {} as never })).toThrow(/guards must be an array/);
      expect(() => backOfficeSettings({ guards: [{}] as never })).toThrow(/guards must be an array/);
      expect(() => backOfficeSettings({ path: '/admin', prefix: '/api' } as never)).toThrow(/unknown option 'prefix'/);
    });
  });
}
