import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { InjectModelRepository, type ModelRepository } from '../src/index.js';
import { Company, Entrepreneur } from './models.js';

/**
 * Gives a new sample something to show: on a start with no users at all, it stores the spec's
 * example (an Entrepreneur and two companies she owns) through the generated repositories, so it
 * works on any database. `SAMPLE_SEED=0` turns it off.
 */
@Injectable()
export class SeedService implements OnApplicationBootstrap {
  private readonly logger = new Logger('Seed');

  constructor(
    @InjectModelRepository(Entrepreneur) private readonly users: ModelRepository<Entrepreneur>,
    @InjectModelRepository(Company) private readonly companies: ModelRepository<Company>,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (process.env.SAMPLE_SEED === '0') return;
    // Only an empty database: once a user exists, the data is the user's.
    if (await this.users.model.exists({})) return;
    const ada = await this.users.create({ niceName: 'Ada Lovelace', birth: new Date('1815-12-10') });
    await this.companies.create({ niceName: 'Analytical Engines', owner: ada._id, employees: 40, location: 'London' });
    await this.companies.create({ niceName: 'Difference Works', owner: ada._id, employees: 12 });
    this.logger.log(`Empty database: added the user ${ada.niceName} (${String(ada._id)}) and her 2 companies (SAMPLE_SEED=0 turns this off)`);
  }
}
