// attack: an uncaught exception in node
// status: exit
// exit_code: 1
// stderr_has: Error: boom
throw new Error('boom');
