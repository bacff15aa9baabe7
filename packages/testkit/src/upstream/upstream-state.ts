import { PROTOCOLS, TurnError, type Protocol } from '@turnguard/core';
import { resolveScenario, scenario, type ScenarioInput } from '../scenario/builder.js';
import type { Scenario } from '../scenario/scenario.js';
import { planReply, type ReplyPlan } from '../wire/reply-plan.js';

/** One request as the mock upstream received it. */
export interface RecordedRequest {
  protocol: Protocol;
  method: string;
  /** Absolute URL. */
  url: string;
  /** Header names in lower case. */
  headers: Record<string, string>;
  /** Parsed JSON body; `undefined` when the body was not JSON. */
  body: unknown;
  bodyText: string;
}

/** Makes the scenario for a request that found its route's queue empty; `undefined` = no scenario. */
export type DefaultScenarioFactory = (protocol: Protocol, request: RecordedRequest) => ScenarioInput | undefined;

export interface UpstreamOptions {
  /** Used when a route's queue is empty (e.g. the probe's and the gateway's `--mock` upstream). */
  defaultScenario?: DefaultScenarioFactory;
  /** Who speaks in the upstream's own error messages (`testkit: no scenario queued…`); default `testkit`. */
  name?: string;
}


/** The path each protocol is served on, relative to a base URL that ends in `/v1`. */
export const ROUTE_PATHS: Record<Protocol, string> = {
  chat: '/chat/completions',
  messages: '/messages',
  responses: '/responses',
};

/** Which protocol a request path belongs to (by suffix, so any prefix such as `/v1` works). */
export function findRouteProtocol(pathname: string): Protocol | undefined {
  const path = pathname.replace(/\/+$/, '');
  return PROTOCOLS.find((protocol) => path.endsWith(ROUTE_PATHS[protocol]));
}

/** FIFO of scenarios for one route: the next request gets the first one. */
export class ScenarioQueue<P extends Protocol> {
  readonly #protocol: P;
  readonly #items: Scenario<P>[] = [];

  constructor(protocol: P) {
    this.#protocol = protocol;
  }

  /** Queues scenarios in order; each serves exactly one request. */
  enqueue(...inputs: ScenarioInput<P>[]): this {
    for (const input of inputs) {
      const built = resolveScenario(input);
      if (built.protocol !== this.#protocol) {
        throw new TurnError({
          kind: 'invalid_request',
          code: 'TESTKIT_PROTOCOL_MISMATCH',
          retryable: false,
          message: `testkit: a ${built.protocol} scenario cannot be queued on the ${this.#protocol} route`,
        });
      }
      this.#items.push(built);
    }
    return this;
  }

  get size(): number {
    return this.#items.length;
  }

  clear(): void {
    this.#items.length = 0;
  }

  /** @internal */
  take(): Scenario<P> | undefined {
    return this.#items.shift();
  }
}

/** Parses a request body as JSON; `undefined` when it is not JSON. */
export function parseJsonBody(bodyText: string): unknown {
  try {
    return JSON.parse(bodyText) as unknown;
  } catch {
    return undefined;
  }
}

/** What a test drives on any scripted upstream, msw-served or loopback. */
export interface UpstreamControls {
  /** Scenarios for `POST {base}/chat/completions`. */
  readonly chat: ScenarioQueue<'chat'>;
  /** Scenarios for `POST {base}/messages`. */
  readonly messages: ScenarioQueue<'messages'>;
  /** Scenarios for `POST {base}/responses`. */
  readonly responses: ScenarioQueue<'responses'>;
  /** Every request received, in arrival order. */
  readonly requests: readonly RecordedRequest[];
  requestsFor(protocol: Protocol): RecordedRequest[];
  /** Forgets recorded requests and empties every queue. */
  reset(): void;
}

/** The controls over one state, so both upstream flavours hand out the same queues and record. */
export function exposeUpstreamControls(state: UpstreamState): UpstreamControls {
  return {
    chat: state.chat,
    messages: state.messages,
    responses: state.responses,
    requests: state.requests,
    requestsFor: (protocol) => state.requestsFor(protocol),
    reset: () => state.reset(),
  };
}

/** Queues, recording and reply planning shared by the msw handlers and the loopback server. */
export class UpstreamState {
  readonly requests: RecordedRequest[] = [];
  readonly chat = new ScenarioQueue('chat');
  readonly messages = new ScenarioQueue('messages');
  readonly responses = new ScenarioQueue('responses');
  /** The prefix of every error message this upstream writes itself. */
  readonly name: string;
  readonly #defaultScenario: DefaultScenarioFactory | undefined;
  #serial = 0;

  constructor(options: UpstreamOptions = {}) {
    this.#defaultScenario = options.defaultScenario;
    this.name = options.name ?? 'testkit';
  }

  /** Records the request and plans its reply from the route's queue (or the default factory). */
  takeReply(request: RecordedRequest): ReplyPlan {
    this.requests.push(request);
    const serial = ++this.#serial;
    if (request.body === undefined) {
      const bad = scenario.for(request.protocol).httpError(400, { message: `${this.name}: request body is not valid JSON` });
      return planReply({ scenario: bad.build(), requestBody: undefined, serial });
    }
    const queued = this.#takeQueued(request.protocol);
    const fallback = queued === undefined ? this.#defaultScenario?.(request.protocol, request) : undefined;
    const chosen = queued ?? (fallback === undefined ? undefined : resolveScenario(fallback));
    if (chosen === undefined || chosen.protocol !== request.protocol) {
      // Loud on purpose: a test that sends more requests than it queued must fail visibly.
      const message =
        chosen === undefined
          ? `${this.name}: no scenario queued for the ${request.protocol} route`
          : `${this.name}: the default scenario for ${request.protocol} is a ${chosen.protocol} scenario`;
      const missing = scenario.for(request.protocol).httpError(500, { message, type: `${this.name.replace(/\W+/g, '_')}_error` });
      return planReply({ scenario: missing.build(), requestBody: request.body, serial });
    }
    return planReply({ scenario: chosen, requestBody: request.body, serial });
  }

  /** Requests received on one route. */
  requestsFor(protocol: Protocol): RecordedRequest[] {
    return this.requests.filter((request) => request.protocol === protocol);
  }

  /** Forgets recorded requests and empties every queue. */
  reset(): void {
    this.requests.length = 0;
    for (const protocol of PROTOCOLS) this[protocol].clear();
  }

  #takeQueued(protocol: Protocol): Scenario | undefined {
    return this[protocol].take();
  }
}
