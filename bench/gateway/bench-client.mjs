// What run.mjs and ab-cold.mjs share: their child processes and the client's measurement.
import { spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { createInterface } from 'node:readline';

/** Starts a child process and waits for the JSON line it prints. */
export function startChild(args) {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    createInterface({ input: child.stdout }).once('line', (line) => resolve({ child, info: JSON.parse(line) }));
  });
}

/** One streamed Chat request through `agent`: ms to the first body byte and to the end. */
export function streamOnce(agent, port, requestBody) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let firstByteAt;
    const request = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/v1/chat/completions',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(requestBody), authorization: 'Bearer sk-bench' },
      },
      (response) => {
        let bytes = 0;
        response.on('data', (chunk) => {
          firstByteAt ??= performance.now();
          bytes += chunk.length;
        });
        response.on('end', () => {
          if (response.statusCode !== 200 || bytes === 0) reject(new Error(`status ${response.statusCode}, ${bytes} bytes`));
          else resolve({ ttfbMs: firstByteAt - started, totalMs: performance.now() - started });
        });
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(requestBody);
  });
}

export const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
