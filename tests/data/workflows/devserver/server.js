// A dev server on a fixed port, as `npm run dev` starts one: IPv4 and
// IPv6 loopback both answer.
const http = require('http');
const port = Number(process.env.PORT);
const handler = (req, res) => res.end('dev server ok\n');
http.createServer(handler).listen(port, '127.0.0.1');
http.createServer(handler).listen(port, '::1');
