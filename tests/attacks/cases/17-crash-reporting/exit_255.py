# attack: exit with the largest exit code
# status: exit
# exit_code: 255
# signal: null
import sys
sys.exit(255)
