import net from 'node:net';

/**
 * Sends a raw RESP `PING` and expects `+PONG`: a real protocol check without a
 * client library's reconnect loop. Throws with what came back otherwise
 * (`-NOAUTH ...` for a server that wants a password).
 */
export function probeRedis(port: number, host = '127.0.0.1', timeoutMs = 2000): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host });
    let reply = '';
    let settled = false;
    const finish = (err?: Error) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      if (err) reject(err);
      else resolve();
    };
    socket.setTimeout(timeoutMs, () => finish(new Error(`no reply to PING within ${timeoutMs} ms`)));
    socket.once('error', (err) => finish(err));
    // A server that hangs up without answering is not Redis.
    socket.once('close', () => finish(new Error('connection closed without a reply to PING')));
    socket.once('connect', () => socket.write('*1\r\n$4\r\nPING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString('latin1');
      const lineEnd = reply.indexOf('\r\n');
      if (lineEnd === -1 && reply.length < 512) return;
      const line = (lineEnd === -1 ? reply : reply.slice(0, lineEnd)).slice(0, 200);
      if (line === '+PONG') finish();
      else if (line.startsWith('-NOAUTH')) finish(new Error('Redis requires a password (NOAUTH)'));
      else finish(new Error(`unexpected reply to PING: ${JSON.stringify(line)}`));
    });
  });
}

export async function isRedisReady(port: number): Promise<boolean> {
  try {
    await probeRedis(port, '127.0.0.1', 1000);
    return true;
  } catch {
    return false;
  }
}
