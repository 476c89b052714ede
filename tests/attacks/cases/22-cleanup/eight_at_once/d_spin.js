// status: timeout
// timeout_s: 1
for (;;) {}
