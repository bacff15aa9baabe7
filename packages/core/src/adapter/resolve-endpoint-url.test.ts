import { describe, expect, it } from 'vitest';
import { resolveEndpointUrl } from './resolve-endpoint-url.js';

describe('resolveEndpointUrl: baseUrl with or without /v1 (decision 0260)', () => {
  const cases: Array<[string, string, string]> = [
    ['https://api.openai.com', '/chat/completions', 'https://api.openai.com/v1/chat/completions'],
    // The same base, another endpoint, right after it: the last URL resolved must not answer (decision 0320).
    ['https://api.openai.com', '/responses', 'https://api.openai.com/v1/responses'],
    ['https://api.openai.com/v1', '/chat/completions', 'https://api.openai.com/v1/chat/completions'],
    ['https://api.openai.com/v1/', '/responses', 'https://api.openai.com/v1/responses'],
    ['https://api.anthropic.com', '/messages', 'https://api.anthropic.com/v1/messages'],
    ['https://api.anthropic.com/v1', '/messages', 'https://api.anthropic.com/v1/messages'],
    ['https://api.anthropic.com/v1//', '/messages', 'https://api.anthropic.com/v1/messages'],
    ['http://127.0.0.1:8080/proxy', '/messages', 'http://127.0.0.1:8080/proxy/v1/messages'],
    ['https://openrouter.ai/api/v1', '/chat/completions', 'https://openrouter.ai/api/v1/chat/completions'],
    ['https://generativelanguage.googleapis.com/v1beta/openai/', '/chat/completions', 'https://generativelanguage.googleapis.com/v1beta/openai/chat/completions'],
    ['https://example.openai.azure.com/openai/v1?api-version=preview', '/responses', 'https://example.openai.azure.com/openai/v1/responses?api-version=preview'],
    // A host name that merely contains "v1" is not a version segment.
    ['https://v1.example.test', '/messages', 'https://v1.example.test/v1/messages'],
  ];
  for (const [baseUrl, endpoint, expected] of cases) {
    it(`${baseUrl} + ${endpoint}`, () => expect(resolveEndpointUrl(baseUrl, endpoint)).toBe(expected));
  }
  it('every case again, in reverse order: the URL it remembers never stands in for another (decision 0320)', () => {
    for (const [baseUrl, endpoint, expected] of [...cases].reverse()) expect(resolveEndpointUrl(baseUrl, endpoint)).toBe(expected);
  });
});
