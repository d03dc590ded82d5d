import type { CallbackEventRow } from './repository.js';
import type { ReceivedCallback } from './schemas.js';

const iso = (at: Date | string | null) => (at === null ? null : new Date(at).toISOString());

export function presentCallback(row: CallbackEventRow): ReceivedCallback {
  return {
    callbackId: row.id,
    source: row.source,
    eventId: row.event_id,
    transactionId: row.transaction_id,
    status: row.status,
    signatureValid: row.signature_valid,
    receivedAt: iso(row.received_at)!,
    processedAt: iso(row.processed_at),
    processingError: row.processing_error,
    payload: row.payload,
  };
}
