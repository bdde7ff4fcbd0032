import { runSpecsUnder } from '../../support/suite.js';

await runSpecsUnder(import.meta.url);
