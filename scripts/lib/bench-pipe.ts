/**
 * The floor a Node proxy can reach, for `npm run bench:gateway`: a bare `http.request` pipe to one upstream
 * with a keep-alive agent and nothing else (no token check, no request id, no limits, no fault handling). The
 * gateway is compared with it in the same run, so what the gateway's own features cost is visible apart from
 * what Node's HTTP server and client cost anyway.
 *   PORT=… UPSTREAM=http://127.0.0.1:… tsx scripts/lib/bench-pipe.ts
 */
import http from 'node:http';

const upstream = new URL(process.env.UPSTREAM ?? 'http://127.0.0.1:7002');
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

const server = http.createServer((req, res) => {
  const proxyReq = http.request(
    { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers, agent },
    (proxyRes) => {
      res.writeHead(proxyRes.statusCode ?? 502, proxyRes.headers);
      proxyRes.pipe(res);
    },
  );
  proxyReq.on('error', () => {
    res.writeHead(502).end();
  });
  req.pipe(proxyReq);
});

server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  process.stderr.write(`listening ${typeof address === 'object' && address ? address.port : 0}\n`);
});
