import { AppError, invalidFormat } from '../../errors.js';
import type { Config } from '../../config.js';
import { registrationProblem } from './target-guard.js';

/**
 * Refuses a notification URL the guard would refuse at delivery, so the merchant learns it when the
 * URL is given (the settings' default URL, a payment's notifyUrl) rather than from the delivery log.
 */
export async function checkNotifyUrl(
  ctx: { config: Pick<Config, 'webhookAllowPrivateTargets'> },
  input: { field: string; url: string | null | undefined },
): Promise<void> {
  const { field, url } = input;
  if (!url) return;
  const problem = await registrationProblem(url, ctx.config.webhookAllowPrivateTargets);
  if (problem === 'url')
    throw invalidFormat(field, url, `${field} must be an absolute http(s) URL without credentials`);
  if (problem === 'scheme') throw forbiddenTarget(field, url, `${field} must use http or https`);
  if (problem === 'address')
    throw forbiddenTarget(field, url, `${field} must not reach a loopback, private, link-local or metadata address`);
}

const forbiddenTarget = (field: string, value: string, message: string) =>
  new AppError('WEBHOOK_TARGET_FORBIDDEN', message, { details: { field, value } });
