# attack: write to every descriptor 3..1023 hoping to reach a result or control channel
# status: ok
# stdout: open fds above 2: []
# stdout: RLIMIT_NOFILE 1024 1024
#   isolate-cheater's metafile-writer: nothing is there to forge a result
#   through.
import errno, os, resource
found = []
for fd in range(3, 1024):
    try:
        os.write(fd, b'{"status":"ok"}\n')
        found.append(fd)
    except OSError as e:
        if e.errno != errno.EBADF:
            found.append((fd, errno.errorcode.get(e.errno)))
print('open fds above 2:', found)
print('RLIMIT_NOFILE', *resource.getrlimit(resource.RLIMIT_NOFILE))
