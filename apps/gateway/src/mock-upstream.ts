import { RECOVERY_INSTRUCTION, type Protocol } from '@turnguard/core';
import { scenario, startLoopbackUpstream, type LoopbackUpstream, type RecordedRequest, type ScenarioInput } from '@turnguard/testkit/server';

export interface MockUpstreamHandle {
  /** Base URL per route, as the adapters expect them (Messages without `/v1`). */
  readonly upstreams: Record<Protocol, string>;
  readonly upstream: LoopbackUpstream;
  close(): Promise<void>;
}

const MOCK_ANSWER = 'Hello from the turnguard mock upstream. Every route works offline.';

function readModel(request: RecordedRequest): string {
  const body = request.body as { model?: unknown } | undefined;
  return typeof body?.model === 'string' ? body.model : '';
}

/**
 * What `--mock` answers when no scenario is queued: a short thought and an
 * answer with usage. A model name containing `cut-thinking` shows R4 offline:
 * segment 1 thinks and ends without a terminal frame, and the recovery
 * request (recognised by core's recovery instruction) gets the answer.
 */
export function pickMockScenario(protocol: Protocol, request: RecordedRequest): ScenarioInput {
  const base = scenario.for(protocol);
  if (readModel(request).includes('cut-thinking') && !request.bodyText.includes(RECOVERY_INSTRUCTION)) {
    // Usage as every real upstream reports it at the start (Messages' message_start); the raw relay passes it on.
    return base.reasoning(600).usage({ input: 12, output: 1 }).eof();
  }
  return base.reasoning(80).text(MOCK_ANSWER).usage({ input: 12, output: 24 });
}

/**
 * The embedded testkit upstream on 127.0.0.1 (a real socket, no msw: the
 * testkit's msw-free entry, R10.3), so the gateway runs offline. It answers
 * the side routes clients call too (`GET /v1/models`, Messages
 * `count_tokens`, R8.8), and every error it writes says "turnguard mock", so
 * a reader knows the answer is not a provider's.
 */
export async function startMockUpstream(): Promise<MockUpstreamHandle> {
  const upstream = await startLoopbackUpstream({ defaultScenario: pickMockScenario, name: 'turnguard mock' });
  const root = upstream.baseUrl.replace(/\/v1$/, '');
  return {
    upstream,
    upstreams: { chat: upstream.baseUrl, responses: upstream.baseUrl, messages: root },
    close: () => upstream.close(),
  };
}
