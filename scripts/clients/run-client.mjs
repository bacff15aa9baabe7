// Runs one client process with stdout and stderr going to the same file, so the
// output keeps the order a person would see it in a terminal.
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function runClient({ command, args, cwd, env }, timeoutSeconds) {
  const outputFile = join(mkdtempSync(join(tmpdir(), 'tg-out-')), 'output.txt');
  const fd = openSync(outputFile, 'w');
  const started = Date.now();
  // Its own process group, so a time-out ends the client and anything it spawned.
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', fd, fd], detached: true });
  closeSync(fd);
  return new Promise((resolve) => {
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try { process.kill(-child.pid, 'SIGKILL'); } catch { /* already gone */ }
    }, timeoutSeconds * 1000);
    const finish = (exitCode, spawnError) => {
      clearTimeout(timer);
      const output = spawnError ? `spawn failed: ${spawnError.message}` : readFileSync(outputFile, 'utf8');
      resolve({ exitCode, output, timedOut, timeoutSeconds, seconds: (Date.now() - started) / 1000 });
    };
    child.on('error', (error) => finish(-1, error));
    child.on('exit', (code, signal) => finish(code ?? (signal ? 128 : -1)));
  });
}
