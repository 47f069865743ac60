import { createServer, STATUS_CODES, type RequestListener, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { problem, PROBLEM_CONTENT_TYPE } from './problem';
import type { ProblemCode } from '../domain/problem-types';

/** What Node's parser refuses before the app sees the request, as the problem it answers. */
function refusal(code: string | undefined): { status: number; code: ProblemCode; detail: string } {
  if (code === 'HPE_HEADER_OVERFLOW') {
    return { status: 431, code: 'request-header-too-large', detail: 'The request line and headers exceed 16 kB.' };
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return { status: 408, code: 'request-timeout', detail: 'The request was not received in time.' };
  }
  return { status: 400, code: 'malformed-request', detail: 'The request is not valid HTTP/1.1.' };
}

/**
 * The API's HTTP server. A request Node's HTTP parser refuses (a URL or headers over its 16 kB
 * limit, a malformed request line) never reaches the app; without a `clientError` handler Node
 * answers with a bare status line, no body and no content type. Every answer of the API is
 * problem+json, these included.
 */
export function createApiServer(listener?: RequestListener): Server {
  const server = createServer(listener);
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    // A connection the client already dropped gets nothing (Node's own advice for this event).
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const { status, code, detail } = refusal(err.code);
    const body = JSON.stringify(problem(status, code, detail));
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
  return server;
}
