import { Controller, Get, Logger } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { GeneratedController } from '../src/index.js';
import { Company } from './models.js';

/**
 * The generated controller of Company, extended: an endpoint of its own, and an override that
 * still runs the generated behaviour.
 */
@Controller()
export class CompanyController extends GeneratedController(Company) {
  private readonly logger = new Logger('CompanyController');

  /** `POST /company`: validated and stored as generated, then logged. */
  override async create(body: unknown) {
    const company = await super.create(body);
    this.logger.log(`Company created: ${company.niceName}`);
    return company;
  }

  /** `GET /company/stats`: never shadowed by `GET /company/:company_id`. */
  @Get('stats')
  @ApiOperation({ operationId: 'company_stats', summary: 'Number of companies and of their employees' })
  @ApiOkResponse({
    schema: { type: 'object', required: ['companies', 'employees'], properties: { companies: { type: 'integer' }, employees: { type: 'number' } } },
  })
  async stats() {
    // One accumulator per $group: FerretDB v1 gives the group's documents to the first accumulator
    // only, so a second `$sum` answers 0 (https://github.com/FerretDB/FerretDB/issues/4616).
    const [companies, [totals]] = await Promise.all([
      this.repository.model.countDocuments().exec(),
      this.repository.model.aggregate<{ employees: number }>([{ $group: { _id: null, employees: { $sum: '$employees' } } }]).exec(),
    ]);
    // No companies, no group: $group answers no document at all.
    return { companies, employees: totals?.employees ?? 0 };
  }
}
