import { ModelRoutesConfigError } from '../../../src/index.js';
import { healthSettings } from '../../../src/health/health-settings.util.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function healthSettingsUtilSpec(): void {
  describe('healthSettings', () => {
    it('defaults to /health, /ready, 1000 ms and the default connection', () => {
      expect(healthSettings()).toEqual({ healthPath: 'health', readyPath: 'ready', readyTimeoutMS: 1000, connectionName: undefined });
    });

    it('takes literal paths of several segments, without their outer slashes', () => {
      expect(healthSettings({ healthPath: '/status/live/', readyPath: 'status/ready', readyTimeoutMS: 250, connectionName: 'catalog' })).toEqual({
        healthPath: 'status/live',
        readyPath: 'status/ready',
        readyTimeoutMS: 250,
        connectionName: 'catalog',
      });
    });

    it.each(['', '/', ':id', 'status/*', 'a//b', 'health?x=1', 'santé', '..', 'status/./ready'])('refuses the path %j, naming the option', (path) => {
      expect(() => healthSettings({ readyPath: path })).toThrow(ModelRoutesConfigError);
      expect(() => healthSettings({ readyPath: path })).toThrow(/ModelRoutesHealthModule: readyPath is .*\[MR_CONFIG_INVALID_OPTION\]$/);
    });

    it('refuses one path for both routes', () => {
      expect(() => healthSettings({ healthPath: 'probe', readyPath: '/probe' })).toThrow(/healthPath and readyPath are both 'probe'/);
    });

    it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '1000' as unknown as number])('refuses readyTimeoutMS %p', (readyTimeoutMS) => {
      expect(() => healthSettings({ readyTimeoutMS })).toThrow(/readyTimeoutMS is .*whole number of milliseconds.*\[MR_CONFIG_INVALID_OPTION\]$/);
    });
  });
}
