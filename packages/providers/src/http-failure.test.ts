import { NodeFailure, RefusedDestinationError } from '@weft/nodes';
import { httpFailure, unansweredFailure } from './http-failure';

const answer = { nodeId: 'n', provider: 'the provider', credentialSource: 'SOME_KEY', said: 'no such model' };

test.each([
  [400, 'invalid_input'],
  [401, 'provider_auth_required'],
  [402, 'invalid_input'],
  [403, 'provider_auth_required'],
  [404, 'invalid_input'],
  [408, 'provider_error'],
  [409, 'provider_error'],
  [413, 'invalid_input'],
  [422, 'invalid_input'],
  [429, 'provider_error'],
  [499, 'invalid_input'],
  [500, 'provider_error'],
  [503, 'provider_error'],
  [0, 'provider_error'],
  [302, 'provider_error'],
] as const)('HTTP %i: %s', (status, reason) => {
  const failure = httpFailure({ ...answer, status });
  expect(failure).toBeInstanceOf(NodeFailure);
  expect(failure.reason).toBe(reason);
});

test.each([
  [400, 'content_policy'],
  [422, 'content_policy'],
  [401, 'provider_auth_required'],
  [500, 'provider_error'],
] as const)('a content refusal with HTTP %i: %s', (status, reason) => {
  expect(httpFailure({ ...answer, status, contentPolicy: true }).reason).toBe(reason);
});

test('a refused credential names where it came from, never what the provider said', () => {
  const failure = httpFailure({ ...answer, status: 401, said: 'Incorrect API key provided: sk-abc***' });
  expect(failure.message).toBe("Node 'n': the provider refused the credentials (HTTP 401); check SOME_KEY");
});

test('the messages quote the provider, cut to 300 characters, and name the status as asked', () => {
  expect(httpFailure({ ...answer, status: 404 }).message).toBe(
    "Node 'n': the provider refused the request (HTTP 404): no such model",
  );
  expect(httpFailure({ ...answer, status: 404, refusalNamesStatus: false }).message).toBe(
    "Node 'n': the provider refused the request: no such model",
  );
  expect(httpFailure({ ...answer, provider: 'Apify', status: 409, said: undefined }).message).toBe(
    "Node 'n': Apify failed (HTTP 409)",
  );
  expect(httpFailure({ ...answer, status: 400, contentPolicy: true, policyCode: 'bad_prompt' }).message).toBe(
    "Node 'n': the provider refused the content (bad_prompt): no such model",
  );
  expect(httpFailure({ ...answer, status: 500, said: 'x'.repeat(301) }).message).toBe(
    `Node 'n': the provider failed (HTTP 500): ${'x'.repeat(300)}…`,
  );
});

test('no answer: a refused base URL is invalid_input, anything else provider_error', () => {
  const refused = new TypeError('fetch failed', {
    cause: new RefusedDestinationError('127.0.0.1 is a loopback address, which nodes may not reach'),
  });
  expect(unansweredFailure(refused, 'n', 'Apify')).toMatchObject({
    reason: 'invalid_input',
    message: "Node 'n': the provider's base URL: 127.0.0.1 is a loopback address, which nodes may not reach",
  });
  expect(unansweredFailure(new TypeError('fetch failed'), 'n', 'Apify')).toMatchObject({
    reason: 'provider_error',
    message: "Node 'n': Apify could not be reached",
  });
});
