# status: signal
# signal: 11
import ctypes
ctypes.string_at(0)
