import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** How the double answers the next chat completions. */
export type DoubleOutcome =
  'ok' | 'json' | 'unauthorized' | 'content_policy' | 'bad_request' | 'server_error' | 'rate_limited_then_ok' | 'stall';

export interface RecordedRequest {
  path: string;
  authorization: string | undefined;
  body: {
    model?: string;
    messages?: { role: string; content: unknown }[];
    temperature?: number;
    max_tokens?: number;
    response_format?: unknown;
    [k: string]: unknown;
  };
}

export interface OpenAIDouble {
  /** The base URL an OpenAI client is given (OPENAI_BASE_URL). */
  baseURL: string;
  requests: RecordedRequest[];
  /** From now on, answer this way (`rate_limited_then_ok`: one 429 with Retry-After, then ok). */
  respond(outcome: DoubleOutcome): void;
  /** The usage every answer reports. */
  usage: { prompt_tokens: number; completion_tokens: number };
  /** The JSON object text a `json` answer holds. */
  jsonAnswer: string;
  close(): Promise<void>;
}

const lastUserText = (body: RecordedRequest['body']): string => {
  const user = [...(body.messages ?? [])].reverse().find((m) => m.role === 'user');
  if (!user) return '';
  if (typeof user.content === 'string') return user.content;
  const parts = user.content as { type: string; text?: string }[];
  return parts.find((p) => p.type === 'text')?.text ?? '';
};

/**
 * A loopback server speaking OpenAI's chat completions protocol (non-streaming):
 * real-shaped bodies and errors, every request recorded, outcomes scripted.
 * An `ok` answer is `echo: <the last user message's text>`.
 */
export async function startOpenAIDouble(): Promise<OpenAIDouble> {
  let outcome: DoubleOutcome = 'ok';
  const sockets = new Set<Socket>();
  const double: OpenAIDouble = {
    baseURL: '',
    requests: [],
    respond(next) {
      outcome = next;
    },
    usage: { prompt_tokens: 12_345, completion_tokens: 6_789 },
    jsonAnswer: '{"title":"Cats","score":7}',
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as RecordedRequest['body'];
      double.requests.push({ path: req.url ?? '', authorization: req.headers.authorization, body });
      const send = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify(payload));
      };
      const error = (status: number, message: string, type: string, code: string | null, headers = {}) =>
        send(status, { error: { message, type, param: null, code } }, headers);
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        return error(404, `Unknown request URL: ${req.method} ${req.url}`, 'invalid_request_error', 'unknown_url');
      }
      const answer = (content: string) =>
        send(200, {
          id: `chatcmpl-${double.requests.length}`,
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model: body.model,
          choices: [
            { index: 0, message: { role: 'assistant', content, refusal: null }, logprobs: null, finish_reason: 'stop' },
          ],
          usage: {
            ...double.usage,
            total_tokens: double.usage.prompt_tokens + double.usage.completion_tokens,
          },
        });
      switch (outcome) {
        case 'ok':
          return answer(`echo: ${lastUserText(body)}`);
        case 'json':
          return answer(double.jsonAnswer);
        case 'unauthorized':
          return error(401, 'Incorrect API key provided: sk-te*****cret.', 'invalid_request_error', 'invalid_api_key');
        case 'content_policy':
          return error(
            400,
            'Your request was rejected as a result of our safety system.',
            'invalid_request_error',
            'content_policy_violation',
          );
        case 'bad_request':
          return error(400, "Invalid value for 'temperature'.", 'invalid_request_error', 'invalid_value');
        case 'server_error':
          return error(500, 'The server had an error while processing your request.', 'server_error', null);
        case 'rate_limited_then_ok':
          outcome = 'ok';
          return error(429, 'Rate limit reached.', 'requests', 'rate_limit_exceeded', { 'retry-after': '1' });
        case 'stall':
          return; // never answers
      }
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  double.baseURL = `http://127.0.0.1:${port}/v1`;
  return double;
}
