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
import {
  EventDetail,
  EventList,
  EventParams,
  ListEventsQuery,
  ListNoticesQuery,
  NewWebhookSecret,
  NoticeList,
  ResendAnswer,
  Settings,
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
