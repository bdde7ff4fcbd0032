import 'reflect-metadata';
import { ValidationPipe } from '@nestjs/common';
import { SchemaFactory } from '@nestjs/mongoose';
import { instanceToPlain, plainToInstance, Type } from 'class-transformer';
import { GeneratedDto } from '../src/index.js';
import { validateDto } from '../src/dto/dto-validation.js';
import { SerializationViews } from '../src/serialization/serialization-views.js';
import { Company, Venture } from './models.js';

/**
 * `node dist-bench/bench/micro.js`: the per-request work of the two scenarios of issue 11, item 5,
 * without HTTP or database, in one process (so a busy machine blurs it far less than req/s):
 * a 100-document page through `ClassSerializerInterceptor`'s calls against the library's view of
 * the same groups, and one create body through the library's check against `ValidationPipe`.
 */
class VenturePage {
  status!: Record<string, number>;
  @Type(() => Venture) result!: Venture[];
}

const page = () => ({
  status: { count: 500, search_count: 100, match_count: 100, limit: 100, skip: 0 },
  result: Array.from({ length: 100 }, (_, i) => ({ _id: 'a'.repeat(24), niceName: `venture-${i}`, employees: i, location: 'Paris', revenue: 1000 * i })),
});
const paths = new Set(['_id', 'niceName', 'employees', 'location', 'revenue']);
const none = new Set<string>();
const views = SerializationViews.of(Venture, SchemaFactory.createForClass(Venture), {
  readable: paths,
  openPrefixes: [],
  hidden: none,
  writeOnly: none,
  writable: paths,
  protected: none,
  objects: none,
  documentArrays: none,
  enums: new Map(),
})!;

async function time<T>(label: string, unit: string, runs: number, make: () => T, work: (input: T) => unknown): Promise<void> {
  const inputs = Array.from({ length: runs }, make);
  for (const input of inputs.slice(0, runs / 4)) await work(input);
  const started = process.hrtime.bigint();
  for (const input of inputs.slice(runs / 4)) await work(input);
  const micros = Number(process.hrtime.bigint() - started) / 1000 / (runs - runs / 4);
  process.stdout.write(`| ${label} | ${micros.toFixed(1)} µs per ${unit} |\n`);
}

process.stdout.write('| work | time |\n|---|---|\n');
for (const groups of [['admin'], ['staff']]) {
  await time(`\`instanceToPlain(plainToInstance(VenturePage, page))\`, groups ${groups}`, '100-document page', 2000, page, (p) =>
    instanceToPlain(plainToInstance(VenturePage, p, { groups }), { groups }),
  );
  await time(`the library's view, groups ${groups}`, '100-document page', 2000, page, (p: ReturnType<typeof page>) => {
    const view = views.view(groups);
    if (view.hidden.size || view.transformed.length) for (const doc of p.result) views.apply(doc, view);
  });
}
const dto = GeneratedDto(Company, 'create');
const pipe = new ValidationPipe({ whitelist: true, forbidNonWhitelisted: true, transform: true });
const body = () => ({ niceName: 'bench-new', employees: 3, location: 'Lyon' });
await time(`the library's DTO check (\`${dto.name}\`)`, 'body', 20000, body, (b) => validateDto(dto, b));
await time(`\`ValidationPipe\` on \`${dto.name}\``, 'body', 20000, body, (b) => pipe.transform(b, { type: 'body', metatype: dto }));
