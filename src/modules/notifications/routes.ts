import { inTransaction } from '../../storage/db-context.js';
import type { NotificationsContext } from './context.js';
import type { App } from '../../http/fastify-app.js';
import { inAuditedTransaction } from '../audit/index.js';
import { merchantScopeOf } from '../../http/credentials.js';
import { getSettings } from './get-settings.js';
import { getEvent, listEvents } from './list-events.js';
import { listNotices } from './list-notices.js';
import { resendEvent } from './resend-event.js';
import { rotateWebhookSecret } from './rotate-webhook-secret.js';
import { createSender } from './sender.js';
import { sendTestEvent } from './send-test-event.js';
import {
  EventDetail,
  EventList,
  EventParams,
  ListEventsQuery,
  ListNoticesQuery,
  NewWebhookSecret,
  NoticeList,
  ResendAnswer,
  SendTestEventBody,
  Settings,
  TestEventDelivery,
  UpdateSettingsBody,
} from './schemas.js';
import { updateSettings } from './update-settings.js';

const tags = ['Notifications'];
const config = { auth: 'api_key' } as const;

/** Settings, the event log and re-sends; the API key's mode selects which settings and events. */
export function notificationRoutes(app: App, ctx: NotificationsContext): void {
  app.get(
    '/settings',
    {
      schema: {
        operationId: 'getSettings',
        summary: "The merchant's settings for this mode",
        tags,
        response: { 200: Settings },
      },
      config,
    },
    async (request) => getSettings(ctx, { scope: merchantScopeOf(request) }),
  );

  app.patch(
    '/settings',
    {
      schema: {
        operationId: 'updateSettings',
        summary: 'Change settings',
        tags,
        body: UpdateSettingsBody,
        response: { 200: Settings },
      },
      config,
    },
    async (request) =>
      inAuditedTransaction(ctx, request, 'settings.updated', (trx) =>
        updateSettings(trx, { scope: merchantScopeOf(request), changes: request.body }),
      ),
  );

  app.post(
    '/settings/webhook-secret',
    {
      schema: {
        operationId: 'rotateWebhookSecret',
        summary: 'Replace the webhook signing secret (shown once; the previous one still signs for 24 h)',
        tags,
        response: { 200: NewWebhookSecret },
      },
      config,
    },
    async (request) =>
      inAuditedTransaction(ctx, request, 'webhook_secret.rotated', (trx) =>
        rotateWebhookSecret(trx, { scope: merchantScopeOf(request) }),
      ),
  );

  app.get(
    '/events',
    {
      schema: {
        operationId: 'listEvents',
        summary: 'Events, newest first',
        tags,
        querystring: ListEventsQuery,
        response: { 200: EventList },
      },
      config,
    },
    async (request) => listEvents(ctx, { scope: merchantScopeOf(request), query: request.query }),
  );

  // Test events are sent while the request waits, so their answer is the outcome: a client of their own
  // (the worker's is the background's), closed with the app.
  const sender = createSender({
    allowPrivateTargets: ctx.config.webhookAllowPrivateTargets,
    timeoutMs: ctx.config.webhookTimeoutMs,
  });
  app.addHook('onClose', () => sender.close());
  app.post(
    '/events/test',
    {
      schema: {
        operationId: 'sendTestEvent',
        summary: "Send a signed sample event of a type to the settings' notifyUrl now, once, and answer the outcome",
        description:
          'The sample is marked as a test (its id starts evt_test_, and `test` is true), signed as every notification is, ' +
          'and not kept in the event log. 409 NOTIFY_URL_NOT_SET when the settings have no notifyUrl.',
        tags,
        body: SendTestEventBody,
        response: { 200: TestEventDelivery },
      },
      config: { ...config, answers: [409] },
    },
    async (request) => sendTestEvent({ ...ctx, sender }, { scope: merchantScopeOf(request), type: request.body.type }),
  );

  app.get(
    '/events/:eventId',
    {
      schema: {
        operationId: 'getEvent',
        summary: 'An event and its delivery attempts',
        tags,
        params: EventParams,
        response: { 200: EventDetail },
      },
      config,
    },
    async (request) => getEvent(ctx, { scope: merchantScopeOf(request), eventId: request.params.eventId }),
  );

  app.post(
    '/events/:eventId/resend',
    {
      schema: {
        operationId: 'resendEvent',
        summary: 'Queue one more delivery now',
        tags,
        params: EventParams,
        response: { 200: ResendAnswer },
      },
      config,
    },
    async (request) =>
      inTransaction(ctx, (trx) =>
        resendEvent(trx, { scope: merchantScopeOf(request), eventId: request.params.eventId }),
      ),
  );

  app.get(
    '/notices',
    {
      schema: {
        operationId: 'listNotices',
        summary: "E-mail notices sent to the merchant's users, newest first",
        tags,
        querystring: ListNoticesQuery,
        response: { 200: NoticeList },
      },
      config,
    },
    async (request) => listNotices(ctx, { merchantId: merchantScopeOf(request).merchantId, query: request.query }),
  );
}
