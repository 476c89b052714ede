# attack: unshare(CLONE_NEWUSER) as the i386 system call 310 through int 0x80
# status: seccomp
# signal: 31
# stdout: before
#   Number 310 is unshare on i386 but a different call on x86-64: a filter
#   that does not check the architecture first would judge the wrong call.
import ctypes, mmap
print('before', flush=True)
# mov eax,310; mov ebx,0x10000000; int 0x80; ret
code = bytes([0xb8, 0x36, 0x01, 0, 0, 0xbb, 0, 0, 0, 0x10, 0xcd, 0x80, 0xc3])
buf = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
buf.write(code)
r = ctypes.CFUNCTYPE(ctypes.c_long)(ctypes.addressof(ctypes.c_char.from_buffer(buf)))()
print('after', r, flush=True)
