import { Type, type Static } from '@sinclair/typebox';

/** `/healthz` (the process is up) and `/readyz` (its database and blob store answer). */
export const ServiceStatus = Type.Object({ status: Type.String({ description: '`ok`, `ready` or `unavailable`.' }) });
export type ServiceStatus = Static<typeof ServiceStatus>;
