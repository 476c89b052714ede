// attack: node connects to the internet and to the host's loopback listener
// status: ok
// host_listener: yes
// stdout: 1.1.1.1 ENETUNREACH
// stdout: 127.0.0.1 ECONNREFUSED
// stdout: dns EAI_AGAIN
const net = require('net');
const dns = require('dns');
const out = {};
let n = 0;
const done = () => {
  if (++n < 3) return;
  for (const k of ['1.1.1.1', '127.0.0.1', 'dns']) console.log(k, out[k]);
};
for (const [h, p] of [['1.1.1.1', 53], ['127.0.0.1', @@PORT@@]]) {
  const s = net.connect({host: h, port: p, timeout: 2000});
  s.on('connect', () => { out[h] = 'CONNECTED'; s.destroy(); done(); });
  s.on('timeout', () => { out[h] = 'timeout'; s.destroy(); done(); });
  s.on('error', (e) => { out[h] = e.code; done(); });
}
dns.lookup('example.com', (e) => { out.dns = e ? e.code : 'RESOLVED'; done(); });
