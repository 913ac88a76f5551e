import net from 'node:net';

/**
 * A loopback TCP port nobody listens on right now, for a child process to listen on (and to listen on again after a
 * restart). It is taken below the kernel's ephemeral range (net.ipv4.ip_local_port_range, 32768–60999 by default), so
 * that no other test's client socket can be given it as its local port between this check and the child's listen, or
 * while the child is down for a restart. A port handed out here is not handed out again by this process.
 */
const handedOut = new Set<number>();

export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 500; attempt++) {
    const candidate = 20_000 + Math.floor(Math.random() * 12_000);
    if (handedOut.has(candidate)) continue;
    if (await canListen(candidate)) {
      handedOut.add(candidate);
      return candidate;
    }
  }
  throw new Error('no free loopback TCP port found below the ephemeral range');
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}
