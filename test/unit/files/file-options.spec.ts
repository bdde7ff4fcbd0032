import { resolveFileOptions } from '../../../src/files/file-options.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function fileOptionsSpec(): void {
  const resolve = (options: Parameters<typeof resolveFileOptions>[0]) => resolveFileOptions(options, 'logo', false, 'Company.logo');

  describe('resolveFileOptions', () => {
    it('has safe defaults: 10 MiB, raster images, served inline, no variants, revalidated by caches', () => {
      const field = resolve({});
      expect(field).toMatchObject({ field: 'logo', gallery: false, maxSize: 10 * 1024 ** 2, cacheControl: 'private, no-cache' });
      expect(field.accept).toEqual(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif']);
      expect([...field.inline]).toEqual(field.accept);
      expect(field.variants).toBeUndefined();
    });

    it.each([
      [1234, 1234],
      ['512KB', 512 * 1024],
      ['5MB', 5 * 1024 ** 2],
      ['1.5 mb', 1.5 * 1024 ** 2],
      ['1GB', 1024 ** 3],
    ])('reads maxSize %p as %p bytes', (maxSize, bytes) => {
      expect(resolve({ maxSize }).maxSize).toBe(bytes);
    });

    it.each([0, -1, 'ten', '5TB', 1.5])('refuses maxSize %p, naming the field', (maxSize) => {
      expect(() => resolve({ maxSize })).toThrow(/^Company\.logo: @FileProp\(\): maxSize/);
    });

    it('bounds a gallery to 100 files by default, or to its maxFiles; a single file has no maxFiles', () => {
      expect(resolveFileOptions({}, 'photos', true, 'Company.photos').maxFiles).toBe(100);
      expect(resolveFileOptions({ maxFiles: 12 }, 'photos', true, 'Company.photos').maxFiles).toBe(12);
      expect(resolve({}).maxFiles).toBeUndefined();
    });

    it.each([0, -1, 1.5, Number.NaN])('refuses maxFiles %p, naming the field', (maxFiles) => {
      expect(() => resolveFileOptions({ maxFiles }, 'photos', true, 'Company.photos')).toThrow(
        /^Company\.photos: @FileProp\(\): maxFiles must be an integer of at least 1/,
      );
    });

    it('refuses maxFiles on a single file field', () => {
      expect(() => resolve({ maxFiles: 3 })).toThrow(
        'Company.logo: @FileProp(): maxFiles bounds a gallery (FileRef[]); a single file field holds one file: remove it.',
      );
    });

    it('serves SVG inline only when listed; lower-cases types', () => {
      expect([...resolve({ accept: ['image/PNG', 'image/svg+xml'] }).inline]).toEqual(['image/png']);
      expect([...resolve({ accept: ['image/svg+xml'], inline: ['image/svg+xml'] }).inline]).toEqual(['image/svg+xml']);
    });

    it('completes variants with their defaults and checks them', () => {
      expect(resolve({ variants: true }).variants).toEqual({ maxWidth: 2048, maxHeight: 2048, formats: ['webp', 'avif', 'png', 'jpeg'], maxPerFile: 20 });
      expect(resolve({ variants: { sizes: [64, 128] } }).variants?.sizes).toEqual([64, 128]);
      expect(() => resolve({ variants: { sizes: [] } })).toThrow(/sizes/);
      expect(() => resolve({ variants: { maxWidth: 0 } })).toThrow(/maxWidth/);
      expect(() => resolve({ variants: { formats: ['gif' as never] } })).toThrow(/formats/);
    });

    it("takes a field's own maxPixels, and no maxPerFile of 0 (a variant is never made for one request only)", () => {
      expect(resolve({ variants: { maxPixels: 4_000_000 } }).variants?.maxPixels).toBe(4_000_000);
      expect(resolve({ variants: true }).variants).not.toHaveProperty('maxPixels');
      expect(() => resolve({ variants: { maxPixels: 0 } })).toThrow(/variants\.maxPixels must be an integer of at least 1/);
      expect(() => resolve({ variants: { maxPerFile: 0 } })).toThrow(/variants\.maxPerFile must be an integer of at least 1/);
    });
  });
}
