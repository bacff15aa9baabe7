// The repo's built gateway as a user starts it: `node apps/gateway/dist/cli.js serve`,
// with both upstreams pointed at the scripted loopback upstream, and a config file (routing, R11) when given.
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const LISTENING = /listening on http:\/\/127\.0\.0\.1:(\d+)/;

export function startGateway(root, upstreamPort, configPath) {
  const upstream = `http://127.0.0.1:${upstreamPort}`;
  const child = spawn(process.execPath, [join(root, 'apps', 'gateway', 'dist', 'cli.js'), 'serve', '--port', '0', '--no-stats',
    '--upstream-messages', upstream, '--upstream-responses', `${upstream}/v1`, '--upstream-chat', `${upstream}/v1`,
    ...(configPath === undefined ? [] : ['--config', configPath])],
  { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH, HOME: process.env.HOME } });
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (part) => {
      output += part;
      const match = LISTENING.exec(output);
      if (match) resolve(handle(child, Number(match[1]), () => output));
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`gateway exited with ${code} before listening:\n${output}`)));
  });
}

function handle(child, port, output) {
  return {
    port,
    output,
    stop: () => new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', resolve);
      child.kill('SIGTERM');
    }),
  };
}
