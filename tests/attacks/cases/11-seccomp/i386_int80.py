# attack: an i386 system call through int 0x80 from a 64-bit process
# status: seccomp
# signal: 31
# stdout: before
#   The i386 getpid (20) runs from machine code in an executable mapping;
#   the architecture check kills it (on a kernel without ia32 emulation it
#   would be SIGSEGV instead: this machine kind has it).
import ctypes, mmap
print('before', flush=True)
code = bytes([0xb8, 0x14, 0, 0, 0, 0xcd, 0x80, 0xc3])  # mov eax,20; int 0x80; ret
buf = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
buf.write(code)
r = ctypes.CFUNCTYPE(ctypes.c_long)(ctypes.addressof(ctypes.c_char.from_buffer(buf)))()
print('after', r, flush=True)
