import type { FastifyRequest } from 'fastify';
import type { App } from '../../http/fastify-app.js';
import { AppError } from '../../errors.js';
import { requireMerchant } from '../../http/credentials.js';
import { validateBodyAs } from '../../http/validation.js';
import { inAuditedTransaction } from '../audit/index.js';
import type { ProcessorConnectionsContext } from './context.js';
import { createConnection } from './create-connection.js';
import { deleteConnection } from './delete-connection.js';
import { getConnection, listConnections } from './list-connections.js';
import type { ConnectionScope } from './repository.js';
import {
  ConnectionDeleted,
  ConnectionList,
  ConnectionParams,
  connectionVariantOf,
  CreateConnectionBody,
  ProcessorConnection,
  UpdateConnectionBody,
} from './schemas.js';
import { updateConnection } from './update-connection.js';

const tags = ['Processor connections'];
/**
 * An API key, or the panel's session in its place, in its mode. Every role reads; a viewer's changes are
 * refused by the credential check (and a viewer holds no API key), so owners and developers change them.
 */
const CONNECTION_ROUTE = { auth: 'api_key' } as const;

const connectionPath = (connectionId: string) => `/processor-connections/${connectionId}`;

/** A test key or panel in test mode sees only test connections, live only live; another merchant's are not there. */
function callerScope(request: FastifyRequest): ConnectionScope {
  const actor = requireMerchant(request);
  // These routes admit no checkout token (the credential check refuses it); this narrows the type.
  if (actor.kind === 'checkout') throw new AppError('FORBIDDEN', 'Processor connections need an API key');
  return { merchantId: actor.merchantId, mode: actor.mode };
}

/** The merchant's connections to processors (docs/processors.md): credentials go in, never come out. */
export function processorConnectionRoutes(app: App, ctx: ProcessorConnectionsContext): void {
  app.post(
    '/processor-connections',
    {
      schema: {
        operationId: 'createProcessorConnection',
        summary: 'Connect a processor for some payment slots, in the mode of the key',
        description:
          'Credentials must be of the mode: Stripe sk_test_… in test mode and sk_live_… in live mode; Adyen ' +
          'environment equal to the mode; the sandbox takes none and is test mode only. They are stored ' +
          'encrypted and never answered.',
        tags,
        body: CreateConnectionBody,
        response: { 201: ProcessorConnection },
      },
      config: CONNECTION_ROUTE,
      preValidation: validateBodyAs(connectionVariantOf),
    },
    async (request, reply) => {
      const scope = callerScope(request);
      const connection = await inAuditedTransaction(
        ctx,
        request,
        'processor_connection.created',
        (trx) => createConnection(trx, { scope, body: request.body }),
        (created) => connectionPath(created.connectionId),
      );
      reply.code(201).header('Location', connectionPath(connection.connectionId));
      return connection;
    },
  );

  app.get(
    '/processor-connections',
    {
      schema: {
        operationId: 'listProcessorConnections',
        summary: "The merchant's processor connections of the key's mode, with their health",
        tags,
        response: { 200: ConnectionList },
      },
      config: CONNECTION_ROUTE,
    },
    async (request) => listConnections(ctx, { scope: callerScope(request) }),
  );

  app.get(
    '/processor-connections/:connectionId',
    {
      schema: {
        operationId: 'getProcessorConnection',
        summary: 'A processor connection (without its credentials)',
        tags,
        params: ConnectionParams,
        response: { 200: ProcessorConnection },
      },
      config: CONNECTION_ROUTE,
    },
    async (request) => getConnection(ctx, { scope: callerScope(request), connectionId: request.params.connectionId }),
  );

  app.patch(
    '/processor-connections/:connectionId',
    {
      schema: {
        operationId: 'updateProcessorConnection',
        summary: "Change a connection's name, slots, priority or credentials",
        tags,
        params: ConnectionParams,
        body: UpdateConnectionBody,
        response: { 200: ProcessorConnection },
      },
      config: CONNECTION_ROUTE,
    },
    async (request) => {
      const scope = callerScope(request);
      return inAuditedTransaction(ctx, request, 'processor_connection.updated', (trx) =>
        updateConnection(trx, { scope, connectionId: request.params.connectionId, changes: request.body }),
      );
    },
  );

  app.delete(
    '/processor-connections/:connectionId',
    {
      schema: {
        operationId: 'deleteProcessorConnection',
        summary: 'Remove a processor connection and its credentials',
        tags,
        params: ConnectionParams,
        response: { 200: ConnectionDeleted },
      },
      config: CONNECTION_ROUTE,
    },
    async (request) => {
      const scope = callerScope(request);
      return inAuditedTransaction(ctx, request, 'processor_connection.deleted', (trx) =>
        deleteConnection(trx, { scope, connectionId: request.params.connectionId }),
      );
    },
  );
}
