import type { Server } from 'node:http';

/**
 * Stops an HTTP server without cutting anyone off: no new connections are accepted, requests
 * in flight run to their answer, and each keep-alive connection is closed as soon as it is idle
 * (checked every 50 ms, so a connection that just answered is not left to its keep-alive
 * timeout). Whatever is still open after `graceMs` is closed hard, so a stuck client cannot
 * hold a deploy. Resolves when the server has closed.
 */
export function closeGracefully(server: Server, graceMs: number): Promise<{ forced: boolean }> {
  return new Promise((resolve) => {
    let forced = false;
    const idle = setInterval(() => server.closeIdleConnections(), 50);
    const hard = setTimeout(() => {
      forced = true;
      server.closeAllConnections();
    }, graceMs);
    server.close(() => {
      clearInterval(idle);
      clearTimeout(hard);
      resolve({ forced });
    });
    server.closeIdleConnections();
  });
}
