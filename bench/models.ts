/** The spec's example models, the same the end-to-end tests use: every server of the benchmark serves these. */
export { Company, Entrepreneur } from '../test/fixtures/models.js';
