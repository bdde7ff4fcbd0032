import { DataDirInUseError } from '../src/embedded/index.js';

/** Where the sample was asked to listen. */
export interface SampleAddress {
  host: string;
  port: number;
}

/**
 * The one line a failed start prints, for the failures a user fixes with a setting (another
 * sample running on the same data folder, or on the same port); `undefined` for any other, which
 * is printed whole.
 */
export function startFailureLine(error: unknown, { host, port }: SampleAddress): string | undefined {
  if (error instanceof DataDirInUseError) {
    const { dataDir, holder } = error;
    return (
      `Another sample app is running on the data folder ${dataDir} (PID ${holder.pid}${holder.owner ? `, ${holder.owner}` : ''}): ` +
      (`stop it (kill ${holder.pid}), or start this one beside it with a data folder and a port of its own: SAMPLE_DATA_DIR=/tmp/sample-2 PORT=${port + 1} ` +
        `npm run sample`)
    );
  }
  if ((error as NodeJS.ErrnoException | undefined)?.code === 'EADDRINUSE') {
    return `Port ${port} of ${host} is in use (another sample app?): stop that process, or start this one on another port: PORT=${port + 1} npm run sample`;
  }
  return undefined;
}
