import adyen from '@adyen/api-library';
import type { AdyenConnectorOptions } from './types.js';

// The SDK is CommonJS: its members are reached through the default export under NodeNext.
const { CheckoutAPI, Client, Config, EnvironmentEnum, HttpURLConnectionClient } = adyen;

type RequestArguments = Parameters<InstanceType<typeof HttpURLConnectionClient>['request']>;

/**
 * What the SDK puts before the API version in a Checkout URL: `https://checkout-test.adyen.com`, or
 * `https://<prefix>-checkout-live.adyenpayments.com/checkout` for live.
 */
const SDK_CHECKOUT_BASE = /^https:\/\/[^/]+?(?:\/checkout)?(?=\/v\d+\/)/;

/**
 * The SDK's own HTTPS client with the Checkout base replaced by `apiBase`. The SDK has no setting for
 * the Checkout endpoint (its services build it from the environment) but takes an HTTP client
 * (`new Client(config, httpClient)`): this is its one public seam.
 */
class RoutedHttpClient extends HttpURLConnectionClient {
  constructor(private readonly base: string) {
    super();
  }

  override request(...args: RequestArguments): Promise<string> {
    const [endpoint, ...rest] = args;
    return super.request(endpoint.replace(SDK_CHECKOUT_BASE, this.base), ...rest);
  }
}

/** The SDK's Checkout API for one connection, pointed at `apiBase` when it is given. */
export function checkoutApiFor(options: AdyenConnectorOptions): InstanceType<typeof CheckoutAPI> {
  const { credentials } = options;
  if (!credentials.apiKey || !credentials.merchantAccount)
    throw new Error('an Adyen connection needs its apiKey and merchantAccount');
  const live = credentials.environment === 'live';
  if (live && !credentials.liveUrlPrefix) throw new Error('an Adyen live connection needs its liveUrlPrefix');
  const config = new Config({
    apiKey: credentials.apiKey,
    environment: live ? EnvironmentEnum.LIVE : EnvironmentEnum.TEST,
    ...(live ? { liveEndpointUrlPrefix: credentials.liveUrlPrefix } : {}),
    connectionTimeoutMillis: options.timeoutMs,
    ...(options.unverifiedTls ? { certificatePath: 'unencrypted' } : {}),
  });
  return new CheckoutAPI(
    new Client(config, options.apiBase ? new RoutedHttpClient(baseOf(options.apiBase)) : undefined),
  );
}

function baseOf(apiBase: string): string {
  const url = new URL(apiBase);
  if (url.protocol !== 'https:') throw new Error(`the Adyen SDK speaks only HTTPS: ${apiBase}`);
  return url.toString().replace(/\/+$/, '');
}
