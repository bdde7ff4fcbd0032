import { Injectable, type OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { WriteEventSink } from './write-hooks.js';

/**
 * The application's `EventEmitter2`, found when the module initialises: where `@nestjs/event-emitter`
 * is installed and its module imported (`EventEmitterModule.forRoot()`), the repositories emit an
 * event per stored write (see `WriteEvent`); elsewhere nothing is emitted and nothing is loaded.
 */
@Injectable()
export class WriteEventEmitter implements OnModuleInit {
  emitter?: WriteEventSink['emitter'];

  constructor(private readonly moduleRef: ModuleRef) {}

  async onModuleInit(): Promise<void> {
    let EventEmitter2: (typeof import('@nestjs/event-emitter'))['EventEmitter2'];
    try {
      ({ EventEmitter2 } = await import('@nestjs/event-emitter'));
    } catch {
      return; // An optional peer: not installed.
    }
    try {
      this.emitter = this.moduleRef.get(EventEmitter2, { strict: false });
    } catch {
      // Installed, its module not imported by the application.
    }
  }

  /** The sink of one resource's repository: its events are named after its path (`company.created`). */
  sinkFor(prefix: string): WriteEventSink {
    // Read at each write: the emitter is found in onModuleInit, after the repositories took their sinks.
    const emitter = () => this.emitter;
    return {
      prefix,
      get emitter() {
        return emitter();
      },
    };
  }
}
