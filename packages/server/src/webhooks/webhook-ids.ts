import { newId, uuidv7 } from '../domain/ids.ts';

/** Time-ordered, so listings sort newest first by id. */
export const eventId = (now: number) => `evt_${uuidv7(now).replaceAll('-', '')}`;
export const deliveryId = (now: number) => `whd_${uuidv7(now).replaceAll('-', '')}`;
export const endpointId = () => newId('wh', 12).replace('-', '_');
/** A task's per-request callback is an endpoint of its own, named after the task. */
export const callbackEndpointId = (taskId: string) => `whc_${taskId}`;
/** The operator's endpoint for one account's events (account ids are short: `acct-` and 16 characters). */
export const operatorEndpointId = (accountId: string) => `whop_${accountId}`;
