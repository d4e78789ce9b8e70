import type { FastifyInstance } from 'fastify';
import { AccountObject, UsageQuery, UsageReport } from '@vidgen/protocol';
import type { BillingService } from '../../billing/billing-service.ts';
import { callerOf } from '../authenticate.ts';
import { described, errorResponses } from '../route-schemas.ts';
import { dayRange, toAccountObject, toUsageRows, usageCsv } from '../admin/billing-wire.ts';

const tags = ['Account'];

/** The caller's own balance, limits and usage. */
export function registerAccountRoutes(app: FastifyInstance, deps: { billing: BillingService }) {
  app.get(
    '/v1/account',
    {
      schema: {
        operationId: 'getAccount',
        summary: "The caller's account: balance, held credits and limits",
        tags,
        response: { 200: described(AccountObject, 'The account'), ...errorResponses() },
      },
    },
    async (request) => toAccountObject(await deps.billing.view(callerOf(request).account)),
  );

  app.get<{ Querystring: { since?: string; until?: string; format?: string } }>(
    '/v1/usage',
    {
      schema: {
        operationId: 'getUsage',
        summary: "The caller's settled usage by API key, model and day (`?format=csv` for CSV)",
        tags,
        querystring: UsageQuery,
        response: { 200: described(UsageReport, 'Usage rows, oldest day first'), ...errorResponses() },
      },
    },
    async (request, reply) => {
      const rows = await deps.billing.usageOf(callerOf(request).account, dayRange(request.query));
      if (request.query.format === 'csv') return reply.type('text/csv; charset=utf-8').send(usageCsv(rows, false));
      return { object: 'list' as const, data: toUsageRows(rows, false) };
    },
  );
}
