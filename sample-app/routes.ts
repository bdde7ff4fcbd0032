import 'reflect-metadata';
import { MODEL_ROUTES_TABLE, ModelRoutesModule, formatRouteTable, type RouteDefinition } from '../src/index.js';
import { modelRoutesOptions } from './app.module.js';

/** Prints the sample app's route table, without a server or a database. */
const module = ModelRoutesModule.forRoot(modelRoutesOptions);
const provider = module.providers?.find(
  (candidate): candidate is { provide: string; useValue: RouteDefinition[] } =>
    typeof candidate === 'object' && 'provide' in candidate && candidate.provide === MODEL_ROUTES_TABLE,
);
process.stdout.write(`${formatRouteTable(provider?.useValue ?? [])}\n`);
