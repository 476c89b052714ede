# attack: ask for more wall time than the profile allows
# rejected: timeout_s
# arguments: {"code": "import time\ntime.sleep(100)", "timeout_s": 100000}
