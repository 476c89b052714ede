// status: ok
// stdout: js ok
setTimeout(() => console.log('js ok'), 300);
