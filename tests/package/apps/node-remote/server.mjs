// The lock server from the installed package on a plain http server that also serves the page
// (index.html and the esbuild bundle in dist/). Prints its port; runs until killed.
import http from 'node:http';
import fs from 'node:fs';
import { createLockServer } from 'weblocks-wasm/server';

const lockServer = createLockServer({ authorize: () => 'app' });
const server = http.createServer((req, res) => {
  const file = { '/': 'page/index.html', '/main.js': 'dist/main.js' }[req.url];
  if (file === undefined) { res.statusCode = 404; res.end(); return; }
  res.setHeader('Content-Type', file.endsWith('.js') ? 'text/javascript' : 'text/html');
  res.end(fs.readFileSync(new URL(file, import.meta.url)));
});
lockServer.attach(server, { path: '/locks' });
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
