import net from 'node:net';

/**
 * A loopback TCP relay in front of a real server that stops dead once `cutAfter` bytes went
 * through towards the server: open connections are destroyed and new ones refused, as when the
 * server is stopped in the middle of an upload. The server itself is untouched, so other tests
 * that share it carry on.
 */
export async function startCuttingRelay(target: URL, cutAfter: number): Promise<{ endpoint: string; cut: Promise<void> }> {
  const sockets = new Set<net.Socket>();
  let sent = 0;
  let resolveCut!: () => void;
  const cut = new Promise<void>((resolve) => (resolveCut = resolve));
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    client.on('data', (chunk: Buffer) => {
      sent += chunk.length;
      if (sent > cutAfter) {
        server.close();
        for (const s of sockets) s.destroy();
        resolveCut();
        return;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    for (const [a, b] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      a.on('error', () => b.destroy());
      a.on('close', () => b.destroy());
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return { endpoint: `http://127.0.0.1:${port}`, cut };
}
