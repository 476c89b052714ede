// attack: node reads its environment and command line
// status: ok
// stdout: env HOME=/tmp LANG=C.UTF-8 PATH=/usr/bin:/bin
// stdout: argv ["/usr/bin/node","/code/main.js"]
// stdout: execArgv []
console.log('env', Object.entries(process.env).sort().map(([k, v]) => k + '=' + v).join(' '));
console.log('argv', JSON.stringify(process.argv));
console.log('execArgv', JSON.stringify(process.execArgv));
