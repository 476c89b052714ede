// attack: node lists its descriptors for anything it did not open itself
// status: ok
// stdout: inherited [0,1,2]
// stdout: sockets []
//   Node opens its own epoll, eventfd and pipes after start; none of its
//   fds is a socket, and below its own first fd there are only 0, 1, 2.
const fs = require('fs');
const fds = fs.readdirSync('/proc/self/fd').map(Number).sort((a, b) => a - b);
const targets = {};
for (const fd of fds) { try { targets[fd] = fs.readlinkSync('/proc/self/fd/' + fd); } catch (e) {} }
console.log('inherited', JSON.stringify(fds.filter((fd) => fd <= 2)));
console.log('sockets', JSON.stringify(Object.values(targets).filter((t) => t.startsWith('socket:'))));
