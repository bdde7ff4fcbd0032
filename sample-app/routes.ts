import 'reflect-metadata';
import { ModelRoutesExplorer, formatRouteTable } from '../src/index.js';
import { modelRoutesOptions } from './app.module.js';

/** Prints the sample app's route table, without a server or a database. */
process.stdout.write(`${formatRouteTable(ModelRoutesExplorer.routeTable(modelRoutesOptions))}\n`);
