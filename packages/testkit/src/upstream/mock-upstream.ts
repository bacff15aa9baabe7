import { PROTOCOLS, type Protocol } from '@turnguard/core';
import { http, HttpResponse, type HttpHandler } from 'msw';
import type { ReplyPlan } from '../wire/reply-plan.js';
import { makeBodyStream } from './body-stream.js';
import {
  ROUTE_PATHS,
  UpstreamState,
  exposeUpstreamControls,
  parseJsonBody,
  type RecordedRequest,
  type UpstreamControls,
  type UpstreamOptions,
} from './upstream-state.js';

/** A scripted upstream speaking Chat, Messages and Responses, served through msw. */
export interface MockUpstream extends UpstreamControls {
  /** msw handlers for the three routes under `baseUrl` (e.g. `https://api.test/v1`). */
  handlers(baseUrl: string): HttpHandler[];
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
    ...exposeUpstreamControls(state),
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
