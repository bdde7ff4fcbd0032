/**
 * The type of a before-hook's data (issue 42, item 4): `BeforeWriteContext<T>.data` is
 * `WriteData<T>`, so a hook reads and sets the fields of its document with their types. Checked by
 * the compiler: `npm run typecheck`, and ts-jest when this file runs; a line marked
 * `@ts-expect-error` that compiled would fail both.
 */
import { BadRequestException } from '@nestjs/common';
import { Types } from 'mongoose';
import type { BeforeWriteContext, ResourceHooks, WriteData } from '../../../src/index.js';

class Comment {
  text!: string;
  at?: Date;
}

class Address {
  city!: string;
  zip!: string;
}

class Ticket {
  title!: string;
  state!: 'open' | 'closed';
  comments?: Comment[];
  address?: Address;
  owner?: Types.ObjectId;
  tags!: Map<string, number>;
  createdAt?: Date;
}

/** `true` when A and B are the same type, not merely assignable. */
type Equal<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false;
const same = <Check extends true>(): Check | undefined => undefined;

class TicketHooks implements ResourceHooks<Ticket> {
  readonly seen: unknown[] = [];

  beforeUpdate({ data }: BeforeWriteContext<Ticket>) {
    // The example: an array of the document, whole.
    if ((data?.comments?.length ?? 0) > 2) throw new BadRequestException('Too many comments');
    same<Equal<typeof data, WriteData<Ticket> | undefined>>();
    same<Equal<NonNullable<typeof data>['comments'], Comment[] | null | undefined>>();
    same<Equal<NonNullable<typeof data>['state'], 'open' | 'closed' | null | undefined>>();
    // A nested object of an update holds the sub-fields that change only.
    same<Equal<NonNullable<NonNullable<typeof data>['address']>['city'], string | null | undefined>>();
    // Dates, identifiers and Maps are whole values.
    same<Equal<NonNullable<typeof data>['createdAt'], Date | null | undefined>>();
    same<Equal<NonNullable<typeof data>['owner'], Types.ObjectId | null | undefined>>();
    same<Equal<NonNullable<typeof data>['tags'], Map<string, number> | null | undefined>>();
    if (!data) return undefined;
    this.seen.push(data.title?.toUpperCase(), data.address?.city, data['address.zip']);
    data.state = 'closed';
    data.address = { city: 'Lyon' };
    data.owner = null; // an update removes it
    data['address.zip'] = '69001';
    return { ...data, touchedBy: 'hook' };
  }
}

/** What the compiler refuses of a hook's writes (never run: the checks are the compiler's). */
function refusedWrites(data: WriteData<Ticket>): void {
  // @ts-expect-error -- a title is a string
  data.title = 3;
  // @ts-expect-error -- no such field (and not a dotted path)
  data.titel = 'typo';
  // @ts-expect-error -- not one of the enum's values
  data.state = 'pending';
  // @ts-expect-error -- an identifier is a whole value, not a partial of one
  data.owner = {};
}

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function writeDataSpec(): void {
  const context = (data: WriteData<Ticket>): BeforeWriteContext<Ticket> => ({
    resource: 'Ticket',
    operation: 'update',
    id: '6b0229b1c62bd98e28d0e9b2',
    data,
    current: () => Promise.resolve(null),
  });

  it('types the data of a before-hook as its document, fields optional: data.comments?.length compiles', () => {
    const hooks = new TicketHooks();
    const changes: WriteData<Ticket> = { title: 'Printer', comments: [{ text: 'On fire' }], address: { zip: '69002' } };
    expect(hooks.beforeUpdate(context(changes))).toEqual({
      title: 'Printer',
      comments: [{ text: 'On fire' }],
      state: 'closed',
      address: { city: 'Lyon' },
      owner: null,
      'address.zip': '69001',
      touchedBy: 'hook',
    });
    expect(hooks.seen).toEqual(['PRINTER', undefined, undefined]);
    expect(() => hooks.beforeUpdate(context({ comments: [{ text: 'a' }, { text: 'b' }, { text: 'c' }] }))).toThrow('Too many comments');
    expect(refusedWrites).toBeInstanceOf(Function);
  });
}
