/**
 * `npm run example`: the example shop next to a development gateway.
 * - With GATEWAY_URL and MERCHANT_API_KEY set, only the shop starts, against that gateway (which must
 *   list the shop's origin in CHECKOUT_FRAME_ANCESTORS).
 * - Without them, a development gateway starts here too, in memory, with the demo merchant, and allows
 *   the shop's origin to frame its checkout.
 */
import { loadConfig } from '../../src/config.js';
import { startGateway } from '../../src/server.js';
import { startShop } from './shop.js';

const SHOP_PORT = Number(process.env.SHOP_PORT ?? 4000);
const shopOrigin = `http://127.0.0.1:${SHOP_PORT}`;

async function main(): Promise<void> {
  let gatewayUrl = process.env.GATEWAY_URL;
  let apiKey = process.env.MERCHANT_API_KEY;
  if (!gatewayUrl || !apiKey) {
    const port = process.env.PORT ?? '3000';
    const config = loadConfig({
      NODE_ENV: 'development',
      PORT: port,
      DATA_DIR: 'memory://',
      LOG_LEVEL: 'warn',
      CHECKOUT_FRAME_ANCESTORS: shopOrigin,
    });
    const gateway = await startGateway(config);
    if (!gateway.demo) throw new Error('the in-memory gateway did not create its demo merchant');
    gatewayUrl = config.publicUrl;
    apiKey = gateway.demo.apiKey;
    process.once('SIGINT', () => void gateway.close().then(() => process.exit(0)));
  }
  const shop = await startShop({ gatewayUrl, apiKey, port: SHOP_PORT });
  process.stdout.write(`Example shop: ${shop.url}  (gateway ${gatewayUrl}; test card 4242 4242 4242 4242)\n`);
}

void main();
