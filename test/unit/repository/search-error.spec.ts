import { timeLimitAmong } from '../../../src/repository/search-error.util.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function searchErrorSpec(): void {
  /** A search's parallel operations: the answer says why the request failed, not which operation lost the race. */
  describe('timeLimitAmong', () => {
    const internal = Object.assign(new Error('interrupted'), { name: 'MongoServerError', code: 1 });
    const timeLimit = Object.assign(new Error('operation exceeded time limit'), { name: 'MongoServerError', code: 50 });

    it('prefers a time limit reached by any operation over the first failure', async () => {
      const operations = [Promise.reject(internal), Promise.resolve(3), Promise.reject(timeLimit)];
      await expect(timeLimitAmong(operations, internal)).resolves.toBe(timeLimit);
    });

    it('keeps the first failure when no operation reached a time limit', async () => {
      const other = new Error('other');
      const operations = [Promise.reject(internal), Promise.reject(other), undefined];
      await expect(timeLimitAmong(operations, internal)).resolves.toBe(internal);
    });
  });
}
