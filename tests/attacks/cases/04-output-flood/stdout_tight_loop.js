// attack: node writes 64 KiB strings to stdout in a loop that never yields
// status: memory|output_limit
// stdout_each~: E*
// timeout_s: 20
// gateway_hwm_mib: 64
//   Node queues what the pipe does not take at once in its own memory,
//   because the loop never lets it flush: usually the job's memory limit
//   ends it ("memory"), with what reached the pipe returned; when the pipe
//   keeps up, the output cap does ("output_limit").  Either way neither
//   the host nor the gateway holds the flood.
const s = 'E'.repeat(65536);
for (;;) process.stdout.write(s);
