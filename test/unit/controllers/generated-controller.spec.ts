import { Controller, Get } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { GeneratedController, getModelRepositoryToken, ModelRepository } from '../../../src/index.js';
import { Company } from '../../fixtures/models.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function generatedControllerSpec(): void {
  /**
   * A user's controller in an isolated unit test, as Nest users write them: no database, no
   * ModelRoutesModule, a stand-in repository under the token the base class injects.
   */
  @Controller()
  class CompanyController extends GeneratedController(Company) {
    @Get('stats')
    stats() {
      return this.repository.definition.name;
    }
  }

  describe('GeneratedController in a unit test built with Test.createTestingModule', () => {
    const calls: string[] = [];
    const repository = {
      definition: { name: 'Company' },
      getOne: async (id: string) => (calls.push(`getOne ${id}`), { _id: id, niceName: 'Acme' }),
    } as unknown as ModelRepository<Company>;

    it('gets this.repository from the token getModelRepositoryToken(Company), and its overridable methods use it', async () => {
      const moduleRef = await Test.createTestingModule({
        controllers: [CompanyController],
        providers: [{ provide: getModelRepositoryToken(Company), useValue: repository }],
      }).compile();
      const controller = moduleRef.get(CompanyController);
      expect(controller.repository).toBe(repository);
      expect(controller.stats()).toBe('Company');
      expect(await controller.findOne('abc')).toEqual({ _id: 'abc', niceName: 'Acme' });
      expect(calls).toEqual(['getOne abc']);
    });

    it('names the missing provider when the test forgets it', async () => {
      await expect(Test.createTestingModule({ controllers: [CompanyController] }).compile()).rejects.toThrow(/CompanyRepository/);
    });
  });
}
