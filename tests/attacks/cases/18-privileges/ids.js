// attack: node checks who it runs as
// status: ok
// stdout: 1000 1000 2 cellgate [1000]
//   (node's getgroups lists the effective gid; there is no other group)
console.log(process.getuid(), process.getgid(), process.pid, require('os').hostname(),
            JSON.stringify(process.getgroups()));
