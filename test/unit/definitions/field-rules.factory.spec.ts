import { Prop, Schema, SchemaFactory, raw } from '@nestjs/mongoose';
import { Types, Schema as MongooseSchema } from 'mongoose';
import { createFieldRules } from '../../../src/definitions/field-rules.factory.js';
import { Article } from '../../fixtures/blog-models.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function fieldRulesFactorySpec(): void {
  @Schema()
  class Badge {
    @Prop() name?: string;
  }

  @Schema({ timestamps: true })
  class Account {
    @Prop({ required: true, unique: true }) email!: string;
    @Prop({ select: false }) passwordHash?: string;
    @Prop({ min: 0 }) credits?: number;
  }

  @Schema()
  class Profile {
    @Prop() niceName?: string;
    @Prop(raw({ city: { type: String }, zip: { type: String } })) address?: Record<string, string>;
    @Prop(raw({ geo: { lat: { type: Number }, lng: { type: Number } }, label: { type: String } })) location?: Record<string, unknown>;
    @Prop({ type: MongooseSchema.Types.Mixed }) meta?: unknown;
    @Prop([String]) tags?: string[];
    @Prop({ type: Map, of: String }) labels?: Map<string, string>;
    @Prop({ type: Badge }) badge?: Badge;
    @Prop({ type: [Badge] }) badges?: Badge[];
    @Prop({ type: MongooseSchema.Types.ObjectId, ref: 'Other' }) owner?: Types.ObjectId;
  }

  @Schema({ timestamps: { createdAt: 'created_at', updatedAt: 'modified' } })
  class Renamed {
    @Prop() name?: string;
  }

  @Schema({ timestamps: { createdAt: false } })
  class UpdatedOnly {
    @Prop() name?: string;
  }

  @Schema({ versionKey: false })
  class Unversioned {
    @Prop() name?: string;
  }

  @Schema({ versionKey: 'revision' })
  class Revisioned {
    @Prop() name?: string;
  }

  const rulesOf = (resource: Function) => createFieldRules(SchemaFactory.createForClass(resource as never));
  const sorted = (set: Iterable<string>) => [...set].sort();

  describe('createFieldRules: hidden and protected fields', () => {
    const rules = rulesOf(Account);

    it('lists select:false paths as hidden, not readable', () => {
      expect(sorted(rules.hidden)).toEqual(['passwordHash']);
      expect(rules.readable.has('passwordHash')).toBe(false);
    });

    it('protects _id, the version key and the timestamps', () => {
      expect(sorted(rules.protected)).toEqual(['__v', '_id', 'createdAt', 'updatedAt']);
      expect(rules.versionKey).toBe('__v');
    });

    it('reads _id and the timestamps but not the version key', () => {
      expect(sorted(rules.readable)).toEqual(['_id', 'createdAt', 'credits', 'email', 'updatedAt']);
    });

    it('lets clients write top-level fields, but no protected field, and no hidden one unless it is write-only', () => {
      expect(sorted(rules.writable)).toEqual(['credits', 'email']);
    });

    it.each<[string, Function, string[], string | undefined]>([
      ['custom timestamp names', Renamed, ['__v', '_id', 'created_at', 'modified'], '__v'],
      ['createdAt disabled', UpdatedOnly, ['__v', '_id', 'updatedAt'], '__v'],
      ['no version key', Unversioned, ['_id'], undefined],
      ['a custom version key', Revisioned, ['_id', 'revision'], 'revision'],
      ['no timestamps', Badge, ['__v', '_id'], '__v'],
    ])('%s', (_label, resource, protectedFields, versionKey) => {
      const rules = rulesOf(resource);
      expect(sorted(rules.protected)).toEqual(protectedFields);
      expect(rules.versionKey).toBe(versionKey);
      expect(sorted(rules.writable)).toEqual(['name']);
      for (const field of protectedFields) expect(rules.writable.has(field)).toBe(false);
      if (versionKey) expect(rules.readable.has(versionKey)).toBe(false);
    });

    it('makes custom timestamp names readable, not the default names', () => {
      const rules = rulesOf(Renamed);
      expect(rules.readable.has('created_at')).toBe(true);
      expect(rules.readable.has('modified')).toBe(true);
      expect(rules.readable.has('createdAt')).toBe(false);
    });
  });

  describe('createFieldRules: nested paths and open prefixes', () => {
    const rules = rulesOf(Profile);

    it('reads nested paths and every parent of them', () => {
      for (const path of ['address.city', 'address.zip', 'address', 'location.geo.lat', 'location.geo.lng', 'location.geo', 'location', 'location.label']) {
        expect(rules.readable.has(path)).toBe(true);
      }
    });

    it('writes every field down to the leaves, through nested objects and sub-documents', () => {
      expect(sorted(rules.writable)).toEqual([
        'address',
        'address.city',
        'address.zip',
        'badge',
        'badge._id',
        'badge.name',
        'badges',
        'badges._id',
        'badges.name',
        'labels',
        'location',
        'location.geo',
        'location.geo.lat',
        'location.geo.lng',
        'location.label',
        'meta',
        'niceName',
        'owner',
        'tags',
      ]);
    });

    it('reads the paths of sub-documents and arrays of sub-documents', () => {
      for (const path of ['badge.name', 'badges.name', 'badge._id']) expect(rules.readable.has(path)).toBe(true);
    });

    it('treats Mixed, maps and arrays of scalars as open prefixes, not sub-documents', () => {
      expect(sorted(rules.openPrefixes)).toEqual(['labels', 'meta', 'tags']);
    });

    it.each(['niceName', 'address', 'address.city', 'owner', '_id'])('%s is not an open prefix', (path) => {
      expect(rules.openPrefixes).not.toContain(path);
    });

    it('does not list the map value path (labels.$*)', () => {
      expect([...rules.readable].some((path) => path.includes('$*'))).toBe(false);
      expect(rules.readable.has('labels')).toBe(true);
    });

    it('has nothing hidden and the default protected fields', () => {
      expect(rules.hidden.size).toBe(0);
      expect(sorted(rules.protected)).toEqual(['__v', '_id']);
    });

    it('works on a hand-made schema with nested select:false', () => {
      const schema = new MongooseSchema({ name: String, auth: { token: { type: String, select: false }, provider: String } });
      const handMade = createFieldRules(schema);
      expect(sorted(handMade.hidden)).toEqual(['auth.token']);
      expect(handMade.readable.has('auth.provider')).toBe(true);
      expect(handMade.readable.has('auth.token')).toBe(false);
      expect(sorted(handMade.writable)).toEqual(['auth', 'auth.provider', 'name']);
    });
  });

  describe('createFieldRules: hidden and readonly options', () => {
    const rules = createFieldRules(SchemaFactory.createForClass(Profile), { hidden: ['address.zip', 'meta'], readonly: ['owner', 'location.geo'] });

    it('hides the listed fields and everything below them', () => {
      expect(sorted(rules.hidden)).toEqual(['address.zip', 'meta']);
      expect(rules.readable.has('address.zip')).toBe(false);
      expect(rules.readable.has('meta')).toBe(false);
      expect(rules.readable.has('address.city')).toBe(true);
    });

    it('protects the readonly fields and everything below them', () => {
      expect(rules.protected.has('owner')).toBe(true);
      expect(rules.protected.has('location.geo')).toBe(true);
      for (const path of ['owner', 'location.geo', 'location.geo.lat']) expect(rules.writable.has(path)).toBe(false);
      expect(rules.writable.has('location.label')).toBe(true);
    });
  });

  describe('createFieldRules: write-only fields, object paths and arrays that hold hidden fields', () => {
    // Article: `lines` are sub-documents with a hidden `pin`, `meta` a nested object with a hidden `token`.
    const rules = createFieldRules(SchemaFactory.createForClass(Article), { writeOnly: ['subtitle'] });
    const profile = rulesOf(Profile);

    it('hides a write-only field from reads and lets clients write it', () => {
      expect(rules.hidden.has('subtitle')).toBe(true);
      expect(rules.readable.has('subtitle')).toBe(false);
      expect(rules.writable.has('subtitle')).toBe(true);
      expect(sorted(rules.writeOnly)).toEqual(['subtitle']);
    });

    it('knows the nested objects and sub-documents, which take objects', () => {
      expect(sorted(rules.objects)).toEqual(['meta']);
      expect(sorted(profile.objects)).toEqual(['address', 'badge', 'location', 'location.geo']);
    });

    it('knows the arrays of sub-documents', () => {
      expect(sorted(rules.documentArrays)).toEqual(['lines']);
      expect(sorted(profile.documentArrays)).toEqual(['badges']);
    });

    it('protects an array of sub-documents that holds a hidden field, not a nested object that does', () => {
      expect(rules.protected.has('lines')).toBe(true);
      expect(rules.writable.has('lines')).toBe(false);
      expect(profile.writable.has('badges')).toBe(true);
      expect(rules.writable.has('meta')).toBe(true);
      expect(rules.writable.has('meta.views')).toBe(true);
      expect(rules.writable.has('meta.token')).toBe(false);
    });
  });
}
