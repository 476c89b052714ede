// attack: node writes 64 KiB strings to stdout in a loop that never yields
// status: memory
// stdout_each~: E*
// stdout_truncated: false
// timeout_s: 20
// gateway_hwm_mib: 64
//   The first write fills the pipe; node queues the rest in its own memory
//   because the loop never lets it flush, so the job's memory limit ends
//   it ("memory"), with what reached the pipe returned.  Neither the host
//   nor the gateway holds the flood.
const s = 'E'.repeat(65536);
for (;;) process.stdout.write(s);
