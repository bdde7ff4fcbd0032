import 'reflect-metadata';
import { SchemaFactory } from '@nestjs/mongoose';
import express from 'express';
import restify from 'express-restify-mongoose';
import mongoose from 'mongoose';
import { Entrepreneur } from '../models.js';
import { companySchema, connectionOptions, listen, settings } from './serve.js';

/** express-restify-mongoose on the same Mongoose models: the best-known peer. */
await mongoose.connect(settings.uri, connectionOptions());
const app = express();
app.use(express.json());
const options = { prefix: '/api' as const, version: '/v1' as const, lean: true, runValidators: true, totalCountHeader: true, limit: 100 };
restify.serve(app, mongoose.model('Entrepreneur', SchemaFactory.createForClass(Entrepreneur)) as never, options);
restify.serve(app, mongoose.model('Company', companySchema()) as never, options);
await listen(app);
