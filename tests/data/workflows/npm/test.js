// A Node worker over child_process IPC, and the local dependency.
const { fork } = require('child_process');
const dep = require('llw-dep');
if (process.argv[2] === 'child') {
  process.on('message', (n) => { process.send(n * 2); process.exit(0); });
} else {
  const child = fork(__filename, ['child']);
  child.on('message', (m) => {
    if (m !== 42 || dep.answer() !== 42) process.exit(1);
    console.log('ipc ok');
  });
  child.send(21);
}
