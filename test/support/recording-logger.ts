import { ConsoleLogger } from '@nestjs/common';

/** A test app's logger that keeps what is logged as an error (every 5xx with its cause) or a warning, and prints nothing. */
export class RecordingLogger extends ConsoleLogger {
  readonly errors: string[] = [];
  readonly warnings: string[] = [];

  override error(message: unknown): void {
    this.errors.push(String(message));
  }

  override log(): void {}
  override warn(message: unknown): void {
    this.warnings.push(String(message));
  }
}
