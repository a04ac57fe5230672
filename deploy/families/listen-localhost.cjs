// Preloaded by start-thoughtbox.sh (node --require). Thoughtbox calls
// app.listen(port), which binds every interface; this puts every
// listen(port[, callback]) without a host on 127.0.0.1 (or TB_BIND_HOST), so
// a server under test is reachable from this machine only, without editing
// it. It also removes TB_CLEANUP_DIR (the script's temporary data) when the
// process exits.
const net = require('node:net');
const fs = require('node:fs');
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const port = args[0];
  if ((typeof port === 'number' || (typeof port === 'string' && /^\d+$/.test(port))) &&
      (args.length === 1 || typeof args[1] === 'function')) {
    args.splice(1, 0, process.env.TB_BIND_HOST || '127.0.0.1');
  }
  return listen.apply(this, args);
};
if (process.env.TB_CLEANUP_DIR) {
  const dir = process.env.TB_CLEANUP_DIR;
  process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
}
