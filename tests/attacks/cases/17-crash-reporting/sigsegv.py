# attack: dereference a null pointer
# status: signal
# signal: 11
# exit_code: null
# stdout: before
import ctypes
print('before', flush=True)
ctypes.string_at(0)
print('after')
