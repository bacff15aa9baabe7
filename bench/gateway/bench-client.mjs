// What run.mjs and ab-cold.mjs share: their child processes and the client's measurement.
import { spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { createInterface } from 'node:readline';

/** Starts a child process and waits for the JSON line it prints. */
export function startChild(args, env = process.env) {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit', 'ipc'], env });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    createInterface({ input: child.stdout }).once('line', (line) => resolve({ child, info: JSON.parse(line) }));
  });
}

/** A Chat completions POST of `requestBody` to the loopback `port` through `agent`. */
function postChat(agent, port, requestBody, onResponse) {
  const headers = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(requestBody), authorization: 'Bearer sk-bench' };
  return httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/v1/chat/completions', agent, headers }, onResponse);
}

/** One streamed Chat request through `agent`: ms to the first body byte and to the end. */
export function streamOnce(agent, port, requestBody) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let firstByteAt;
    const request = postChat(agent, port, requestBody, (response) => {
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
    });
    request.on('error', reject);
    request.end(requestBody);
  });
}

export const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** Sends `message` to a child over IPC and resolves with its next answer. */
export function ask(child, message) {
  return new Promise((resolve) => {
    child.once('message', resolve);
    child.send(message);
  });
}

/** A child's exit, awaited after kill() so the next one starts on a quiet box. */
export function stopChild(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else {
      child.once('exit', () => resolve());
      child.kill();
    }
  });
}

const CONTENT_DELTA = '"content":"w'; // the bench upstream's first text delta is `word0 `

/**
 * One streamed Chat request through `agent`, as the client sees it: ms to
 * the response headers, to the first body byte and to the first content
 * delta (`"content":"w…`, never the role chunk's empty content), and to the end.
 */
export function streamTimings(agent, port, requestBody) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let firstByteAt;
    let firstContentAt;
    let seen = '';
    const request = postChat(agent, port, requestBody, (response) => {
      const headersAt = performance.now();
      response.setEncoding('utf8');
      response.on('data', (chunk) => {
        const now = performance.now();
        firstByteAt ??= now;
        if (firstContentAt === undefined) {
          seen += chunk;
          if (seen.includes(CONTENT_DELTA)) firstContentAt = now;
        }
      });
      response.on('end', () => {
        if (response.statusCode !== 200 || firstContentAt === undefined) reject(new Error(`status ${response.statusCode}, no content delta`));
        else resolve({ headersMs: headersAt - started, firstByteMs: firstByteAt - started, firstContentMs: firstContentAt - started, totalMs: performance.now() - started });
      });
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(requestBody);
  });
}

/** "median (min–max)" of `values`, each formatted by `format`. */
export function medianRange(values, format) {
  return `${format(median(values))} (${format(Math.min(...values))}–${format(Math.max(...values))})`;
}

/** A streaming Chat request body for the bench upstream; `promptKib` > 0 makes the user message that many KiB (decision 0320). */
export function chatStreamBody(model, promptKib = 0) {
  return JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: promptKib > 0 ? 'x'.repeat(promptKib * 1024) : 'hello' }] });
}
