import pino, { type Logger } from 'pino';

export type { Logger };

/** Structured JSON logs (pino): one line per event, cheap enough for the hot path. */
export function createLogger(level: string, name: string): Logger {
  return pino({
    name,
    level,
    base: { service: name },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: ['req.headers.authorization', 'password', '*.password', '*.token'], remove: true },
  });
}
