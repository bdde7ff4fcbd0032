import { createServer } from 'node:http';
import mongoose from 'mongoose';
import { settings } from './serve.js';

/**
 * The floor of "get one" (`npm run bench:floor`): Node's `http` and the MongoDB driver, nothing
 * else. `GET /company/:id` checks the id (24 hex characters, else 400), reads the document by `_id`
 * without its version key, and answers it as JSON (404 when there is none). No framework, no
 * schema, no time limit: what no server of this app can be faster than.
 */
const { MongoClient, ObjectId } = mongoose.mongo;
const client = await new MongoClient(settings.uri).connect();
const companies = client.db(settings.dbName).collection('companies');
const ROUTE = /^\/company\/([0-9a-f]{24})$/i;

const server = createServer((request, response) => {
  const match = request.method === 'GET' ? ROUTE.exec(request.url ?? '') : null;
  const answer = (status: number, body: unknown) => {
    const text = JSON.stringify(body);
    response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
    response.end(text);
  };
  if (!match) return answer(400, { message: 'not a company id' });
  companies.findOne({ _id: new ObjectId(match[1]) }, { projection: { __v: 0 } }).then(
    (doc) => (doc ? answer(200, doc) : answer(404, { message: 'no such company' })),
    () => answer(500, { message: 'the database failed' }),
  );
});
await new Promise<void>((resolve) => server.listen(settings.port, '127.0.0.1', resolve));
process.on('SIGTERM', () => server.close(() => void client.close().then(() => process.exit(0))));
process.stdout.write(`READY ${settings.port}\n`);
