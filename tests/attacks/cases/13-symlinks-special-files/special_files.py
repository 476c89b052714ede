# attack: create device nodes, fifos and sockets in the writable places
# status: ok
# stdout: mknod /tmp/mem (char 1:1) EPERM
# stdout: mknod /tmp/sda (block 8:0) EPERM
# stdout: mknod /dev/shm/null (char 1:3) EPERM
# stdout: mkfifo /tmp/fifo OK
# stdout: bind /tmp/sock OK
# stdout: mknod /tmp/reg (regular) OK
# stdout: open /dev/null w OK
# stdout: write /dev/full ENOSPC
#   Device nodes need CAP_MKNOD in the host's user namespace (and /tmp is
#   nodev anyway).  Fifos and sockets are harmless: the tmpfs is discarded
#   with the job, never walked by the host (the after-checks show nothing
#   is left).
import errno, os, socket, stat
def t(name, fn):
    try:
        fn()
        print(name, 'OK')
    except OSError as e:
        print(name, errno.errorcode.get(e.errno))
t('mknod /tmp/mem (char 1:1)', lambda: os.mknod('/tmp/mem', stat.S_IFCHR | 0o666, os.makedev(1, 1)))
t('mknod /tmp/sda (block 8:0)', lambda: os.mknod('/tmp/sda', stat.S_IFBLK | 0o666, os.makedev(8, 0)))
t('mknod /dev/shm/null (char 1:3)', lambda: os.mknod('/dev/shm/null', stat.S_IFCHR | 0o666, os.makedev(1, 3)))
t('mkfifo /tmp/fifo', lambda: os.mkfifo('/tmp/fifo'))
t('bind /tmp/sock', lambda: socket.socket(socket.AF_UNIX).bind('/tmp/sock'))
t('mknod /tmp/reg (regular)', lambda: os.mknod('/tmp/reg', stat.S_IFREG | 0o600))
t('open /dev/null w', lambda: open('/dev/null', 'w').write('x'))
def full():
    with open('/dev/full', 'w') as f:
        f.write('x')
t('write /dev/full', full)
