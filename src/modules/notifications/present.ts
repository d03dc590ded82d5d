import { ERRORS, type ErrorName } from '../../errors.js';
import type { findAttempts } from './repository.js';
import type { EventEnvelope } from './schemas.js';

/** The API version whose shapes the events carry. */
export const EVENTS_API_VERSION = '2.1';

export const eventIdOf = (id: number) => `evt_${id}`;
export const parseEventId = (eventId: string) => Number(eventId.slice('evt_'.length));

export function toEnvelope(row: {
  id: number;
  type: string;
  payload: Record<string, unknown>;
  created_at: Date;
  livemode: boolean;
}): EventEnvelope {
  return {
    id: eventIdOf(row.id),
    type: row.type,
    created: new Date(row.created_at).toISOString(),
    apiVersion: EVENTS_API_VERSION,
    livemode: row.livemode,
    data: { object: row.payload },
  };
}

/** An attempt's error is stored as "<ERROR_NAME>: <message>". */
export const storedError = (error: { error: ErrorName; message: string } | null) =>
  error && `${error.error}: ${error.message}`;

export function toAttempt(row: Awaited<ReturnType<typeof findAttempts>>[number]) {
  let error = null;
  if (row.error) {
    const [name, ...rest] = row.error.split(': ');
    error = { error: name, code: ERRORS[name as ErrorName]?.code ?? name, message: rest.join(': ') };
  }
  return {
    at: new Date(row.at).toISOString(),
    url: row.url,
    statusCode: row.status_code,
    durationMs: row.duration_ms,
    error,
  };
}
