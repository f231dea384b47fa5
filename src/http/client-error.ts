/**
 * Answers requests Node's HTTP parser refuses before any route runs (headers too large, malformed) with a `{ code,
 * message }` body.
 */
import type { Duplex } from 'node:stream';
import { ERRORS, type ErrorCode } from '../kernel/errors.ts';

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};

/** The code for a parser error: header overflow is 431, headers too slow 408, anything else 400. */
function codeOf(err: NodeJS.ErrnoException): ErrorCode {
  if (err.code === 'HPE_HEADER_OVERFLOW') return 'headers_too_large';
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return 'request_timeout';
  return 'malformed_request';
}

/** A `clientError` listener for `http.Server`: writes a small JSON error and closes the connection. */
export function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const code = codeOf(err);
  const status = ERRORS[code].status;
  const body = JSON.stringify({ code, message: ERRORS[code].message });
  socket.end(
    `HTTP/1.1 ${status} ${REASONS[status] ?? 'Error'}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
  );
}
