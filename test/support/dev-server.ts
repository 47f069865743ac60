import { spawn } from 'node:child_process';
import net from 'node:net';
import { Connection } from '@temporalio/client';
import { TEMPORAL_CLI } from './env';

/** How long a dev server may take to answer; under a full parallel suite it has taken seconds. */
const READY_WITHIN_MS = 60_000;
/** The tail of the server's output kept for the error when it does not come up. */
const OUTPUT_KEPT = 16_384;

export interface DevServer {
  /** host:port of its frontend. */
  address: string;
  /** Kills the server and waits until it has exited. */
  stop(): Promise<void>;
}

/** The Temporal CLI's arguments for a dev server in memory, headless, on 127.0.0.1:`port` (tests and benches). */
export const devServerArgs = (port: number, extra: string[]): string[] => [
  'server',
  'start-dev',
  '--ip',
  '127.0.0.1',
  '--port',
  String(port),
  '--headless',
  ...extra,
];

/**
 * A Temporal CLI dev server (in memory, headless) on 127.0.0.1:`port`, or on a port of its own,
 * ready once its frontend answers.
 *
 * The tests start it themselves rather than through the SDK's `createLocal`, which gives the
 * server five seconds to answer and sends its output nowhere the test report shows. Here a
 * server that exits or stays silent fails with its own last words, and a loaded machine gets the
 * time it needs. Of the SDK's arguments for the servers it starts, the two that matter here are
 * kept: no server version check, and Updates on (case workflows take them).
 */
export async function startDevServer(options: { port?: number; args: string[] }): Promise<DevServer> {
  const port = options.port ?? (await freePort());
  const address = `127.0.0.1:${port}`;
  const child = spawn(
    TEMPORAL_CLI,
    devServerArgs(port, [
      '--namespace',
      'default',
      ...['frontend.enableServerVersionCheck=false', 'frontend.enableUpdateWorkflowExecution=true'].flatMap((value) => [
        '--dynamic-config-value',
        value,
      ]),
      ...options.args,
    ]),
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-OUTPUT_KEPT));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<string>((resolve) => child.once('exit', (code, signal) => resolve(`exited (${signal ?? `code ${code}`})`)));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };

  const deadline = Date.now() + READY_WITHIN_MS;
  for (;;) {
    const outcome = await Promise.race([
      answers(address).then(
        () => 'ready' as const,
        (e: Error) => e.message,
      ),
      exited,
    ]);
    if (outcome === 'ready') return { address, stop };
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`Temporal dev server on ${address} ${await exited} before it answered; its output:\n${output}`);
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(
        `Temporal dev server on ${address} did not answer within ${READY_WITHIN_MS / 1000} s (${outcome}); its output:\n${output}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Resolves once the frontend at `address` answers a call (it refuses them until it is healthy).
 * The port is tried first: a gRPC connection to a closed port waits out its reconnect backoff.
 */
async function answers(address: string): Promise<void> {
  if (!(await listening(address))) throw new Error('nothing listens yet');
  // Closed whether or not it connected: a failed `Connection.connect` leaves its channel open.
  const connection = Connection.lazy({ address, connectTimeout: '2s' });
  try {
    await connection.ensureConnected(); // getSystemInfo, refused until the frontend is healthy
  } finally {
    await connection.close();
  }
}

function listening(address: string): Promise<boolean> {
  const [host, port] = address.split(':');
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), host);
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

/**
 * A TCP port nothing listens on right now, kept from everyone else for about a minute.
 *
 * A port merely bound and released goes back to the kernel's pool, and the next outgoing
 * connection of any process (to Postgres, to the API under test) may take it as its source port,
 * so a server started on it later cannot bind. Here the port is released through one connection
 * closed from the listening side first: that side waits in TIME_WAIT (60 s on Linux), during
 * which the kernel hands the port to no bind(0) and no outgoing connection, while a server that
 * binds it explicitly with SO_REUSEADDR (the Temporal CLI does, as Node does) still can. The
 * Temporal CLI and SDK reserve their own ports the same way.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer((accepted) => accepted.destroy());
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      const client = net.connect(port, '127.0.0.1');
      client.once('error', reject);
      // The accepted side closed first; the client's end follows it.
      client.once('close', () => server.close(() => resolve(port)));
      client.resume();
    });
  });
}
