// HEALTHCHECK of the images: `node healthcheck.js <path> <port variable> <default port>`.
// The slim base image has neither curl nor wget, and node is already there.
const [path = '/healthz', portVar = 'PORT', defaultPort = '8080'] = process.argv.slice(2);
const port = process.env[portVar] || defaultPort;

fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(2500) }).then(
  (res) => process.exit(res.ok ? 0 : 1),
  () => process.exit(1),
);
