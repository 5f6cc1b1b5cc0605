/**
 * The upstream of `npm run bench:gateway`, a process of its own: an Express app built like every service
 * (`createServiceApp`: request id, access log, JSON parser, token check) answering the cheap read
 * `GET /api/v1/boards/category?name=INTRO` with a fixed body, so direct and proxied runs hit the same work.
 * Prints `listening <port>` once ready.
 */
import { createLogger, createServiceApp, listen } from '../../shared/src';

const categories = [
  { code: '트렌드', name: 'TREND' },
  { code: '후기', name: 'REVIEW' },
];

async function main(): Promise<void> {
  const logger = createLogger('bench-upstream', process.env.LOG_LEVEL ?? 'info');
  const app = createServiceApp({
    service: 'community',
    logger,
    publicKey: process.env.JWT_PUBLIC_KEY ?? '',
    routes: (routes) => {
      routes.get('/api/v1/boards/category', (_req, res) => {
        res.json({ code: 'SUCCESS', message: '성공', data: categories });
      });
    },
  });
  const server = await listen(app, Number(process.env.PORT ?? 0), '127.0.0.1');
  const address = server.address();
  process.stderr.write(`listening ${typeof address === 'object' && address ? address.port : 0}\n`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
