"""Runs inside the booted container: an MCP client over Streamable HTTP that
knows only a URL and a key, as a user of the package would have.  Usage:
  python3 mcp_client.py URL KEY
Prints one JSON object: the results of a Python job, a JavaScript job and a
job that sleeps while this script finds the job's processes on the
container's host side and reads their cgroups.  Stdlib only."""
import json
import os
import sys
import threading
import time
import urllib.request

URL, KEY = sys.argv[1], sys.argv[2]
VERSION = "2025-11-25"
JOB_UID_MIN = 2000000000  # the package's jailer.conf uid_base


class Session:
    def __init__(self):
        self.sid = None
        self.next_id = 0

    def post(self, msg):
        headers = {"Authorization": "Bearer " + KEY, "Content-Type": "application/json",
                   "Accept": "application/json, text/event-stream",
                   "MCP-Protocol-Version": VERSION}
        if self.sid:
            headers["Mcp-Session-Id"] = self.sid
        req = urllib.request.Request(URL, data=json.dumps(msg).encode(), headers=headers,
                                     method="POST")
        with urllib.request.urlopen(req, timeout=30) as r:
            if r.headers.get("Mcp-Session-Id"):
                self.sid = r.headers["Mcp-Session-Id"]
            body = r.read()
            return r.status, json.loads(body) if body else None

    def request(self, method, params):
        self.next_id += 1
        _, reply = self.post({"jsonrpc": "2.0", "id": self.next_id, "method": method,
                              "params": params})
        return reply

    def execute(self, code, language="python"):
        reply = self.request("tools/call", {"name": "execute",
                                            "arguments": {"code": code, "language": language}})
        return reply["result"]["structuredContent"]


def job_cgroups():
    """cgroup lines of every process running as a job uid."""
    found = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open("/proc/%s/status" % pid) as f:
                uid = next(int(l.split()[1]) for l in f if l.startswith("Uid:"))
            if uid >= JOB_UID_MIN:
                with open("/proc/%s/cgroup" % pid) as f:
                    found[pid] = f.read().split()
        except (OSError, StopIteration):
            pass
    return found


s = Session()
out = {}
init = s.request("initialize", {"protocolVersion": VERSION, "capabilities": {},
                                "clientInfo": {"name": "check-systemd", "version": "1"}})
out["server"] = init["result"]["serverInfo"]["name"]
s.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
out["python"] = s.execute("print(6 * 7)")
out["javascript"] = s.execute("console.log('js', 6 * 7)", "javascript")
slept = {}
t = threading.Thread(target=lambda: slept.update(
    s.execute("import time\ntime.sleep(3)\nprint('slept')")))
t.start()
deadline = time.monotonic() + 2.5
seen = {}
while time.monotonic() < deadline and not seen:
    seen = job_cgroups()
    time.sleep(0.05)
t.join(30)
out["sleep"] = slept
out["job_cgroups"] = seen
out["v2"] = os.path.exists("/sys/fs/cgroup/cgroup.controllers")
print(json.dumps(out))
