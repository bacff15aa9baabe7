import { request as httpRequest } from 'node:http';

export interface RawReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * One request with exactly the given headers (fetch forbids setting `Host`
 * and adds its own `Origin` rules), for the inbound security tests.
 */
export function rawRequest(url: string, options: { method?: string; path: string; headers?: Record<string, string>; body?: string }): Promise<RawReply> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      { host: target.hostname, port: target.port, method: options.method ?? 'POST', path: options.path, headers: options.headers ?? {}, agent: false },
      (incoming) => {
        let body = '';
        incoming.setEncoding('utf8');
        incoming.on('data', (part: string) => (body += part));
        incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, body }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}
