/**
 * Starts the installed `turnguard serve --mock` on a free loopback port and
 * asks it one chat completion, the way a user's client would (R10.4).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

export interface MockCompletion {
  status: number;
  content: string | undefined;
  banner: string;
}

function waitForListening(child: ReturnType<typeof spawn>): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
      if (url !== undefined) resolve(url);
    });
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.once('exit', (code) => reject(new Error(`turnguard serve exited ${String(code)} before listening:\n${output}`)));
  });
}

export async function askMockGateway(consumerDir: string): Promise<MockCompletion> {
  const bin = join(consumerDir, 'node_modules', '.bin', 'turnguard');
  const child = spawn(bin, ['serve', '--mock', '--port', '0', '--no-stats'], { cwd: consumerDir, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const url = await waitForListening(child);
    const response = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer not-a-real-key' },
      body: JSON.stringify({ model: 'gpt-4.1', messages: [{ role: 'user', content: 'hi' }] }),
    });
    const body = (await response.json()) as { choices?: { message?: { content?: string } }[] };
    return { status: response.status, content: body.choices?.[0]?.message?.content, banner: url };
  } finally {
    child.kill('SIGTERM');
  }
}
