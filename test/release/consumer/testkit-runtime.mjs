// Runs the installed testkit against whichever msw the consumer installed: one
// scripted chat stream through msw's interception, with the clone release on.
import { setupServer } from 'msw/node';
import { createMockUpstream, releaseMockedResponseClones, scenario } from '@turnguard/testkit';

const upstream = createMockUpstream();
const server = setupServer(...upstream.handlers('https://api.test/v1'));
server.listen({ onUnhandledRequest: 'error' });
releaseMockedResponseClones(server);
upstream.chat.enqueue(scenario.chat().text('Hello from the mock').usage({ input: 3, output: 4 }));
try {
  const response = await fetch('https://api.test/v1/chat/completions', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
  });
  const body = await response.text();
  const { version } = JSON.parse(await import('node:fs').then((fs) => fs.readFileSync(new URL(import.meta.resolve('msw/package.json')), 'utf8')));
  console.log(JSON.stringify({ msw: version, status: response.status, requests: upstream.requests.length, done: body.includes('data: [DONE]'), finish: body.includes('"finish_reason":"stop"') }));
} finally {
  server.close();
}
