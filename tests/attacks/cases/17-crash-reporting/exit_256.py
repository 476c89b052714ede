# attack: _exit(256): the kernel keeps only the low 8 bits, so this is a clean exit
# status: ok
# exit_code: 0
# stdout: exiting
#   minijail WaitTest.return_modulo: the status is what the kernel reports
#   (256 & 0xff = 0), the gateway does not invent another.
import os
print('exiting', flush=True)
os._exit(256)
