import { ConsoleLogger } from '@nestjs/common';

/** A test app's logger that keeps what is logged as an error (every 5xx with its cause) and prints nothing. */
export class RecordingLogger extends ConsoleLogger {
  readonly errors: string[] = [];

  override error(message: unknown): void {
    this.errors.push(String(message));
  }

  override log(): void {}
  override warn(): void {}
}
