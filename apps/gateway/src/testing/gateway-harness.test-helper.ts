import type { StatsSink, TurnRecord, UsageSample } from '@turnguard/core';
import { startLoopbackUpstream, type LoopbackUpstream } from '@turnguard/testkit';
import { createGateway, type Gateway, type GatewayOptions } from '../create-gateway.js';

/** A sink that keeps what runTurn recorded and lets a test wait for the next turn (no sleeps). */
export class RecordingSink implements StatsSink {
  readonly samples: UsageSample[] = [];
  readonly turns: TurnRecord[] = [];
  private waiters: Array<{ count: number; resolve: () => void }> = [];

  recordUsage(sample: UsageSample): void {
    this.samples.push(sample);
  }

  recordTurn(turn: TurnRecord): void {
    this.turns.push(turn);
    this.waiters = this.waiters.filter((waiter) => {
      if (this.turns.length < waiter.count) return true;
      waiter.resolve();
      return false;
    });
  }

  /** Resolves once `count` turns have been recorded. */
  waitForTurns(count: number): Promise<void> {
    if (this.turns.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }
}

export interface Harness {
  upstream: LoopbackUpstream;
  gateway: Gateway;
  sink: RecordingSink;
  /** `http://127.0.0.1:<port>`: Anthropic clients' baseURL. */
  url: string;
  /** `${url}/v1`: OpenAI clients' baseURL. */
  openAiBaseUrl: string;
  close(): Promise<void>;
}

/**
 * A gateway on a real loopback socket forwarding to a testkit loopback
 * upstream (real sockets both ways, no msw). Retry backoff is lowered to 1 ms
 * so no test sleeps for real.
 */
export async function startHarness(options: GatewayOptions = {}): Promise<Harness> {
  const upstream = await startLoopbackUpstream();
  const sink = new RecordingSink();
  const root = upstream.baseUrl.replace(/\/v1$/, '');
  const gateway = createGateway({
    port: 0,
    upstreams: { chat: upstream.baseUrl, responses: upstream.baseUrl, messages: root },
    retry: { initialDelayMs: 1, maxDelayMs: 2 },
    stats: sink,
    env: {},
    ...options,
  });
  await gateway.listen();
  const url = gateway.url!;
  return {
    upstream,
    gateway,
    sink,
    url,
    openAiBaseUrl: `${url}/v1`,
    async close() {
      await gateway.close();
      await upstream.close();
    },
  };
}

/** Reads a whole SSE body as text records (`event`/`data` pairs), for wire-level assertions. */
export async function readSseRecords(response: Response): Promise<Array<{ event: string | undefined; data: string }>> {
  const text = await response.text();
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      let event: string | undefined;
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) event = line.slice(7);
        else if (line.startsWith('data: ')) data.push(line.slice(6));
      }
      return { event, data: data.join('\n'), comment: event === undefined && data.length === 0 };
    })
    // A block of comment lines only (keep-alives, the turn's comment) dispatches nothing, as in every SSE parser.
    .filter((record) => !record.comment)
    .map(({ event, data }) => ({ event, data }));
}
