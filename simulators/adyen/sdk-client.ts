import adyen from '@adyen/api-library';

// The SDK is CommonJS: its members are reached through the default export under NodeNext.
const { Client, Config: AdyenConfig, EnvironmentEnum, HttpURLConnectionClient } = adyen;

type RequestArguments = Parameters<InstanceType<typeof HttpURLConnectionClient>['request']>;

/** Where @adyen/api-library 32 sends Checkout calls in its TEST environment. */
export const ADYEN_CHECKOUT_TEST_BASE = 'https://checkout-test.adyen.com';

/**
 * The SDK's own HTTPS client, with the Checkout test host replaced by the simulator's. The SDK
 * has no option for the Checkout endpoint (its services build it from the environment), but it
 * takes a client (`new Client(config, httpClient)`): this is the one public seam.
 */
class SimulatorHttpClient extends HttpURLConnectionClient {
  constructor(private readonly base: string) {
    super();
  }

  override request(...args: RequestArguments): Promise<string> {
    const [endpoint, ...rest] = args;
    const target = endpoint.startsWith(ADYEN_CHECKOUT_TEST_BASE)
      ? this.base + endpoint.slice(ADYEN_CHECKOUT_TEST_BASE.length)
      : endpoint;
    return super.request(target, ...rest);
  }
}

/**
 * An SDK Client that talks to an Adyen simulator. The SDK speaks only HTTPS, so the simulator must
 * be started with `tls`; `certificatePath: 'unencrypted'` is the SDK's switch to accept its
 * throwaway self-signed certificate. For tests only.
 */
export function adyenClientForSimulator(
  simulator: { url: string; apiKey: string },
  options: { connectionTimeoutMillis?: number } = {},
): InstanceType<typeof Client> {
  if (!simulator.url.startsWith('https:')) throw new Error('the Adyen SDK needs the simulator started with tls');
  const config = new AdyenConfig({
    apiKey: simulator.apiKey,
    environment: EnvironmentEnum.TEST,
    certificatePath: 'unencrypted',
    connectionTimeoutMillis: options.connectionTimeoutMillis ?? 30_000,
  });
  return new Client(config, new SimulatorHttpClient(simulator.url));
}
