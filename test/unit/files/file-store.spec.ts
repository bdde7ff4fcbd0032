import { Types, type Connection } from 'mongoose';
import { FileStore } from '../../../src/files/file-store.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function fileStoreSpec(): void {
  /** A connection whose collections record the filters they are given, and find no variants. */
  function recordingConnection() {
    const calls: Array<{ collection: string; op: 'find' | 'deleteMany'; filter: unknown }> = [];
    const collection = (name: string) => ({
      find: (filter: unknown) => {
        calls.push({ collection: name, op: 'find', filter });
        return { toArray: async () => [] };
      },
      deleteMany: async (filter: unknown) => {
        calls.push({ collection: name, op: 'deleteMany', filter });
        return { deletedCount: 0 };
      },
    });
    return { connection: { db: { collection } } as unknown as Connection, calls };
  }

  describe('FileStore.delete', () => {
    it('deletes one file by equality, which FerretDB pushes down to its backend (a $in reads every chunk of the bucket)', async () => {
      const { connection, calls } = recordingConnection();
      const id = new Types.ObjectId();
      await new FileStore(connection, 'boxes_files').delete([id]);
      expect(calls).toEqual([
        { collection: 'boxes_files.files', op: 'find', filter: { 'metadata.variantOf': id } },
        { collection: 'boxes_files.chunks', op: 'deleteMany', filter: { files_id: id } },
        { collection: 'boxes_files.files', op: 'deleteMany', filter: { _id: id } },
      ]);
    });

    it(
      'deletes several files in three commands whatever their number (a gallery, a file and its variants): one $in each, not a round trip ' + 'per file',
      async () => {
        const { connection, calls } = recordingConnection();
        const ids = [new Types.ObjectId(), new Types.ObjectId()];
        await new FileStore(connection, 'boxes_files').delete(ids);
        // No variants found by the recording connection: the files themselves, by $in.
        expect(calls).toEqual([
          { collection: 'boxes_files.files', op: 'find', filter: { 'metadata.variantOf': { $in: ids } } },
          { collection: 'boxes_files.chunks', op: 'deleteMany', filter: { files_id: { $in: ids } } },
          { collection: 'boxes_files.files', op: 'deleteMany', filter: { _id: { $in: ids } } },
        ]);
      },
    );

    it('does nothing for no file', async () => {
      const { connection, calls } = recordingConnection();
      await new FileStore(connection, 'boxes_files').delete([]);
      expect(calls).toEqual([]);
    });
  });
}
