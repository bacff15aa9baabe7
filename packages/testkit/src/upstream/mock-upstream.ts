import type { Protocol } from '@turnguard/core';
import { http, HttpResponse, type HttpHandler } from 'msw';
import type { ReplyPlan } from '../wire/reply-plan.js';
import { makeBodyStream } from './body-stream.js';
import {
  PROTOCOLS,
  ROUTE_PATHS,
  UpstreamState,
  parseJsonBody,
  type RecordedRequest,
  type ScenarioQueue,
  type UpstreamOptions,
} from './upstream-state.js';

/** A scripted upstream speaking Chat, Messages and Responses, served through msw. */
export interface MockUpstream {
  /** Scenarios for `POST {base}/chat/completions`. */
  readonly chat: ScenarioQueue<'chat'>;
  /** Scenarios for `POST {base}/messages`. */
  readonly messages: ScenarioQueue<'messages'>;
  /** Scenarios for `POST {base}/responses`. */
  readonly responses: ScenarioQueue<'responses'>;
  /** Every request received, in arrival order. */
  readonly requests: readonly RecordedRequest[];
  requestsFor(protocol: Protocol): RecordedRequest[];
  /** msw handlers for the three routes under `baseUrl` (e.g. `https://api.test/v1`). */
  handlers(baseUrl: string): HttpHandler[];
  /** Forgets recorded requests and empties every queue. */
  reset(): void;
}

async function recordFetchRequest(protocol: Protocol, request: Request): Promise<RecordedRequest> {
  const bodyText = await request.text();
  return {
    protocol,
    method: request.method,
    url: request.url,
    headers: Object.fromEntries(request.headers.entries()),
    body: parseJsonBody(bodyText),
    bodyText,
  };
}

function toMswResponse(plan: ReplyPlan, signal: AbortSignal): Response {
  // A network error is the closest msw gets to a socket destroyed before headers.
  if (plan.destroyBeforeHeaders) return HttpResponse.error();
  return new HttpResponse(makeBodyStream(plan, signal), { status: plan.status, headers: plan.headers });
}

export function createMockUpstream(options: UpstreamOptions = {}): MockUpstream {
  const state = new UpstreamState(options);
  return {
    chat: state.chat,
    messages: state.messages,
    responses: state.responses,
    requests: state.requests,
    requestsFor: (protocol) => state.requestsFor(protocol),
    reset: () => state.reset(),
    handlers(baseUrl) {
      const base = baseUrl.replace(/\/+$/, '');
      return PROTOCOLS.map((protocol) =>
        http.post(`${base}${ROUTE_PATHS[protocol]}`, async ({ request }) => {
          const recorded = await recordFetchRequest(protocol, request);
          return toMswResponse(state.takeReply(recorded), request.signal);
        }),
      );
    },
  };
}
