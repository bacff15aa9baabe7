import { scenario } from '@turnguard/testkit';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createGateway } from '../create-gateway.js';
import { errorOf } from '../testing/error-of.test-helper.js';
import { startHarness } from '../testing/gateway-harness.test-helper.js';
import { startOtlpReceiver, type OtlpReceiver } from '../testing/otlp-receiver.test-helper.js';

let receiver: OtlpReceiver | undefined;

afterEach(async () => {
  vi.unstubAllEnvs();
  await receiver?.close();
  receiver = undefined;
});

async function oneTurn(): Promise<void> {
  const harness = await startHarness();
  harness.upstream.chat.enqueue(scenario.chat().text('hello').usage({ input: 2, output: 1 }));
  const response = await fetch(`${harness.openAiBaseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-x' },
    body: JSON.stringify({ model: 'proto-model', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
  });
  await response.text();
  await harness.sink.waitForTurns(1);
  await harness.close();
}

describe('OTLP encodings and switches (R12.1)', () => {
  it('the default encoding is OTLP/HTTP protobuf, to the signal paths under the endpoint', async () => {
    receiver = await startOtlpReceiver();
    vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', receiver.url);
    vi.stubEnv('OTEL_METRIC_EXPORT_INTERVAL', '600000');
    await oneTurn();
    const paths = receiver.bodies.map((body) => [body.path, body.contentType]);
    expect(paths).toEqual(expect.arrayContaining([['/v1/traces', 'application/x-protobuf'], ['/v1/metrics', 'application/x-protobuf']]));
    // Protobuf keeps strings as their UTF-8 bytes: the span and metric names are there.
    const traces = Buffer.concat(receiver.bodies.filter((body) => body.path === '/v1/traces').map((body) => body.body)).toString('latin1');
    expect(traces).toContain('chat proto-model');
    const metrics = Buffer.concat(receiver.bodies.filter((body) => body.path === '/v1/metrics').map((body) => body.body)).toString('latin1');
    expect(metrics).toContain('gen_ai.client.operation.duration');
  });

  it('with no OTEL_* variable nothing is sent anywhere', async () => {
    receiver = await startOtlpReceiver();
    await oneTurn();
    expect(receiver.bodies).toEqual([]);
  });

  it('an OTLP protocol the gateway cannot send fails createGateway, before anything listens', () => {
    vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', 'http://127.0.0.1:4317');
    vi.stubEnv('OTEL_EXPORTER_OTLP_PROTOCOL', 'grpc');
    expect(errorOf(() => createGateway({ port: 0 }))).toMatchObject({ code: 'GATEWAY_INVALID_CONFIG' });
  });
});
