import { Injectable, type CanActivate } from '@nestjs/common';
import { Prop, Schema } from '@nestjs/mongoose';
import { Types } from 'mongoose';
import { GeneratedResource, ModelRoutesModule } from '../../../src/index.js';
import { bootTestApp } from '../../support/app.js';
import { useEngine } from '../../support/engine.js';
import { RecordingLogger } from '../../support/recording-logger.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function relationAccessSpec(): void {
  /** Declaring expand or filter is an access decision: the start says where it reaches past a guard. */
  const engine = useEngine();

  @Injectable()
  class StaffOnly implements CanActivate {
    canActivate(): boolean {
      return true;
    }
  }

  /** Patrons are read by staff only; loans, by anyone, or (`guarded`) by staff only too. */
  const models = (guarded: boolean) => {
    const staff = { guards: [StaffOnly] };
    const read = guarded ? staff : true;
    @GeneratedResource({ routes: { findOne: staff, search: read, searchPost: read } })
    @Schema()
    class Patron {
      @Prop() name?: string;
    }
    @GeneratedResource({
      references: { patron: { expand: true, expandReverse: 'loans', find: read } },
      routes: { findOne: read, search: read, searchPost: read },
    })
    @Schema()
    class Loan {
      @Prop() title?: string;
      @Prop({ type: Types.ObjectId, ref: 'Patron' }) patron?: Types.ObjectId;
    }
    return [Patron, Loan];
  };

  async function warningsOf(guarded: boolean): Promise<string[]> {
    const logger = new RecordingLogger();
    const app = await bootTestApp(engine, {
      modelRoutes: ModelRoutesModule.forRoot({ resources: models(guarded), references: { reverse: false, reversePost: false } }),
      appOptions: { logger },
    });
    await app.close();
    return logger.warnings;
  }

  it("warns at the start where an expandable reference answers documents without their own routes' guards, naming the routes and the guards", async () => {
    expect(await warningsOf(false)).toEqual([
      'Loan.patron (expand) lets GET /loan/:loan_id, GET /loans, POST /loans answer Patron documents without the guards of GET /patron/:patron_id ' +
        '(StaffOnly): give those routes the same guards, or do not declare it (see docs/references.md#expanding-references).',
    ]);
  });

  it('says nothing where the routes that expand carry the same guards', async () => {
    expect(await warningsOf(true)).toEqual([]);
  });
}
