# attack: a child crashes, the program itself exits cleanly
# status: ok
# stdout: child signal 11
#   The status is the interpreter's, not that of some other process.
import ctypes, os
pid = os.fork()
if pid == 0:
    ctypes.string_at(0)
_, st = os.waitpid(pid, 0)
print('child signal', os.WTERMSIG(st))
