// A bare Fastify process: one JSON route, no logger, no hooks, plain Node (no TypeScript loader).
// The baseline of bench/poll.bench.ts (requests/s) and bench/idle-rss.bench.ts (idle RSS).
// Prints `{"url": …}` once it listens; exits on SIGTERM.
import Fastify from 'fastify';

const app = Fastify();
app.get('/', async () => ({ status: 'ok' }));
const url = await app.listen({ host: '127.0.0.1', port: 0 });
console.log(JSON.stringify({ url }));
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
