# attack: orphans keep writing to stdout after the program has exited
# status: ok
# stdout: parent done
# wall_ms: 0..1500
#   Nothing written after the program's exit may be added to its result
#   or delay it.
import os, time
for i in range(3):
    if os.fork() == 0:
        time.sleep(0.3)
        while True:
            os.write(1, b'late\n')
            time.sleep(0.01)
print('parent done')
