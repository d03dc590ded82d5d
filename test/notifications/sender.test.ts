import { afterAll, beforeAll, expect, it } from 'vitest';
import { createSender } from '../../src/modules/notifications/sender.js';
import { startReceiver, type Receiver } from './receiver.js';

// The connect-time half of the SSRF guard: the HTTP client itself refuses an address a name resolves
// to, whatever the name looked like (DNS rebinding), before any byte is sent.
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => receiver.close());

it('refuses to connect where a name resolves to loopback when private targets are not allowed', async () => {
  const sender = createSender({ allowPrivateTargets: false, timeoutMs: 2000 });
  try {
    const port = new URL(receiver.url).port;
    const result = await sender.send(`http://localhost:${port}/guarded`, {}, '{}');
    expect(result).toMatchObject({ statusCode: null, error: { error: 'WEBHOOK_TARGET_FORBIDDEN' } });
    expect(receiver.at('/guarded')).toHaveLength(0);
  } finally {
    await sender.close();
  }
});

it('connects there when private targets are allowed (development)', async () => {
  const sender = createSender({ allowPrivateTargets: true, timeoutMs: 2000 });
  try {
    const port = new URL(receiver.url).port;
    const result = await sender.send(`http://localhost:${port}/allowed`, {}, '{}');
    expect(result).toMatchObject({ statusCode: 200, error: null });
    expect(receiver.at('/allowed')).toHaveLength(1);
  } finally {
    await sender.close();
  }
});
