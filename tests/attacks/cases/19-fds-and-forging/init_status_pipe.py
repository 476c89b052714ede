# attack: reach the status pipe that init holds, through /proc/1/fd, to forge the exit status
# status: exit
# exit_code: 7
# stdout: listdir /proc/1/fd EACCES
# stdout: open /proc/1/fd/3 EACCES
# stdout: open /proc/1/fd/4 EACCES
# stdout: open /proc/1/fdinfo/3 EACCES
#   Init (not dumpable) keeps its fds to itself; the job's real status
#   (exit 7) is what is reported.
import errno, os, struct, sys
def t(name, fn):
    try:
        fn()
        print(name, 'OK')
    except OSError as e:
        print(name, errno.errorcode.get(e.errno))
t('listdir /proc/1/fd', lambda: os.listdir('/proc/1/fd'))
for fd in (3, 4):
    t('open /proc/1/fd/%d' % fd, lambda: os.write(os.open('/proc/1/fd/%d' % fd, os.O_WRONLY),
                                                  struct.pack('i', 0)))
t('open /proc/1/fdinfo/3', lambda: open('/proc/1/fdinfo/3').read())
sys.stdout.flush()
sys.exit(7)
