import { expect, it } from 'vitest';
import { scrub } from '../../src/http/logging.js';

// The pattern net under every log line (src/http/logging.ts): card numbers go, identifiers stay whole.
it('redacts a card number anywhere in a line, but keeps a UUID whose last group is all digits', () => {
  expect(scrub('{"msg":"charged 4242424242424242 ok"}')).toBe('{"msg":"charged [REDACTED_PAN] ok"}');
  expect(scrub('{"number":"5555555555554444"}')).toBe('{"number":"[REDACTED_PAN]"}');
  expect(scrub('pan=378282246310005&x=1')).toBe('pan=[REDACTED_PAN]&x=1');
  // 1 UUID in ~280 ends in twelve digits; a provider's event id carries one.
  const eventId = 'evt_1b9d6bcd-bbfd-4b2d-9b5d-123456789012';
  expect(scrub(`{"eventId":"${eventId}"}`)).toBe(`{"eventId":"${eventId}"}`);
  expect(scrub('"7C9E6679-7425-40DE-944B-000000000000"')).toBe('"7C9E6679-7425-40DE-944B-000000000000"');
  // A card number next to a UUID is still a card number.
  expect(scrub(`${eventId} 4111111111111111`)).toBe(`${eventId} [REDACTED_PAN]`);
});
