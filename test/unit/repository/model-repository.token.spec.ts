import { getConnectionToken, getModelToken } from '@nestjs/mongoose';
import { getModelRepositoryToken } from '../../../src/repository/model-repository.token.js';
import { Company } from '../../fixtures/models.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function modelRepositoryTokenSpec(): void {
  describe('getModelRepositoryToken', () => {
    it('is built like getModelToken, with Repository for Model', () => {
      expect(getModelToken('Company')).toBe('CompanyModel');
      expect(getModelRepositoryToken(Company)).toBe('CompanyRepository');
      expect(getModelRepositoryToken('Company')).toBe('CompanyRepository');
    });

    it('prefixes the connection token of a named connection', () => {
      expect(getModelRepositoryToken('Book', 'catalog')).toBe(`${getConnectionToken('catalog')}/BookRepository`);
    });

    it('gives one token for the default connection, named or not', () => {
      expect(getModelRepositoryToken(Company, getConnectionToken())).toBe(getModelRepositoryToken(Company));
    });

    it('does not collide with the names of @nestjs/typeorm (getRepositoryToken) or @nestjs/mongoose (getModelToken)', async () => {
      const library = await import('../../../src/index.js');
      expect(library).not.toHaveProperty('getRepositoryToken');
      expect(library).not.toHaveProperty('InjectRepository');
      expect(library).not.toHaveProperty('getModelToken');
    });
  });
}
