"""The soak's programs and what each must return.

Good jobs carry a fresh nonce in their output, so a reply that belongs to
another request can never pass.  Hostile jobs are written so that their
typed status is deterministic under the hostile tenant's limits (see
HOSTILE_LIMITS in bench/soak): e.g. the fork bombs' main process is the one
that reports EAGAIN and exits 3, whatever its children do.
"""

import random


class Job:
    def __init__(self, kind, language, code, status, stdout=None, exit_code=None,
                 timeout_s=None):
        self.kind = kind
        self.language = language
        self.code = code
        self.status = status
        self.stdout = stdout
        self.exit_code = exit_code
        self.timeout_s = timeout_s

    @property
    def name(self):
        return f"{self.kind}/{self.language}"

    def check(self, outcome):
        """None when `outcome` is exactly what this job must return, else
        a short description of the difference."""
        if not isinstance(outcome, dict):
            return "no structured result"
        diffs = []
        if outcome.get("status") != self.status:
            diffs.append(f"status {outcome.get('status')!r} != {self.status!r}")
        if self.exit_code is not None and outcome.get("exit_code") != self.exit_code:
            diffs.append(f"exit_code {outcome.get('exit_code')!r} != {self.exit_code!r}")
        if self.stdout is not None and outcome.get("stdout") != self.stdout:
            diffs.append(f"stdout {str(outcome.get('stdout'))[:80]!r} != {self.stdout[:80]!r}")
        if self.status == "ok" and outcome.get("stderr") != "":
            diffs.append(f"stderr {str(outcome.get('stderr'))[:80]!r} != ''")
        return "; ".join(diffs) or None


# ------------------------------------------------------------------ good
def good_job(rng, tag):
    """A well-behaved job: print, a small computation or a short sleep."""
    nonce = f"{tag}-{rng.getrandbits(32):08x}"
    language = rng.choice(("python", "javascript"))
    kind = rng.choice(("print", "compute", "sleep"))
    if kind == "print":
        out = f"hello {nonce}\n"
        code = (f"print('hello {nonce}')" if language == "python"
                else f"console.log('hello {nonce}');")
    elif kind == "compute":
        n = rng.randrange(20000, 60000)
        # Sum of squares below n: below 2^53, so exact in JavaScript too.
        out = f"{nonce} {(n - 1) * n * (2 * n - 1) // 6}\n"
        code = (f"print('{nonce}', sum(i * i for i in range({n})))" if language == "python"
                else f"let s = 0; for (let i = 0; i < {n}; i++) s += i * i;\n"
                     f"console.log('{nonce}', s);")
    else:
        out = f"slept {nonce}\n"
        code = (f"import time\ntime.sleep(0.05)\nprint('slept {nonce}')" if language == "python"
                else f"setTimeout(() => console.log('slept {nonce}'), 50);")
    return Job(kind, language, code, "ok", stdout=out, exit_code=0)


# --------------------------------------------------------------- hostile
PY_FORK_BOMB = """import os, signal
main = os.getpid()
while True:
    try:
        os.fork()
    except OSError:
        # Only the main process decides the job's end; the others wait to
        # be killed with the job.
        if os.getpid() == main:
            print("fork refused")
            os._exit(3)
        signal.pause()
"""

JS_FORK_BOMB = """const cp = require('child_process');
function refused() { console.log('fork refused'); process.exit(3); }
// Each child is a shell fork bomb; the main process keeps spawning until
// the kernel refuses (EAGAIN arrives as an 'error' event).
for (let i = 0; i < 4096; i++) {
  let c;
  try {
    c = cp.spawn('/bin/sh', ['-c', ':(){ :|:& };:'], {stdio: 'ignore'});
  } catch (e) {
    refused();
  }
  c.on('error', refused);
}
"""

HOSTILE = [
    Job("forkbomb", "python", PY_FORK_BOMB, "exit", stdout="fork refused\n", exit_code=3),
    Job("forkbomb", "javascript", JS_FORK_BOMB, "exit", stdout="fork refused\n", exit_code=3),
    Job("membomb", "python", "a = []\nwhile True:\n    a.append(bytearray(1 << 20))\n",
        "memory"),
    Job("membomb", "javascript", "const a = [];\nfor (;;) a.push(Buffer.alloc(1 << 20, 1));\n",
        "memory"),
    Job("flood", "python", "import sys\nwhile True:\n    sys.stdout.write('x' * 65536)\n",
        "output_limit"),
    # Each write waits for the previous one to drain: a loop of bare writes
    # would queue them in memory once the pipe is full and end as `memory`.
    Job("flood", "javascript",
        "const s = 'x'.repeat(65536);\n(function w() { process.stdout.write(s, w); })();\n",
        "output_limit"),
    Job("spin", "python", "while True:\n    pass\n", "timeout", timeout_s=1),
    Job("spin", "javascript", "for (;;) {}\n", "timeout", timeout_s=1),
    Job("oversleep", "python", "import time\ntime.sleep(30)\n", "timeout", timeout_s=1),
    Job("oversleep", "javascript", "setTimeout(() => {}, 30000);\n", "timeout", timeout_s=1),
]


def hostile_jobs(offset):
    """An endless round-robin over every hostile job, from `offset`, so all
    kinds run at once across the hostile clients."""
    i = offset
    while True:
        yield HOSTILE[i % len(HOSTILE)]
        i += 1


def good_jobs(seed):
    rng = random.Random(seed)
    seq = 0
    while True:
        seq += 1
        yield good_job(rng, f"{seed}.{seq}")
