import net from 'node:net';

// The floor of any gateway that relays downloads, for `npm run bench:assets`:
// a process that copies bytes between two TCP sockets and does nothing else
// (no HTTP parsing, no authentication, no database). What it reaches beside
// the ceiling in the same run is as close to the ceiling as a relay can get
// on this machine. RELAY_TARGET is the store's host:port; the port it listens
// on goes back over IPC.
const [host, port] = process.env.RELAY_TARGET!.split(':') as [string, string];

const server = net.createServer((client) => {
  const store = net.connect(Number(port), host);
  client.pipe(store);
  store.pipe(client);
  const close = () => {
    client.destroy();
    store.destroy();
  };
  client.on('error', close).on('close', close);
  store.on('error', close).on('close', close);
});

server.listen(0, '127.0.0.1', () => process.send?.((server.address() as net.AddressInfo).port));
process.on('SIGTERM', () => process.exit(0));
process.on('disconnect', () => process.exit(0));
