import type { AttemptEnd, DeliveryLease, WebhookDelivery, WebhookEndpoint } from './webhook-events.ts';

export type NewEndpoint = Omit<WebhookEndpoint, 'status' | 'disabledReason' | 'previousSecret' | 'previousSecretUntil'>;
export type NewDelivery = Pick<WebhookDelivery, 'id' | 'eventId' | 'endpointId' | 'accountId' | 'eventType' | 'taskId' | 'createdAt' | 'maxAttempts'>;

export interface ClaimRequest {
  owner: string;
  now: number;
  /** How long the claim holds; past it, another dispatcher may take the delivery again. */
  leaseMs: number;
  limit: number;
}

/**
 * Webhook endpoints and the delivery outbox. The outbox rows of a task's transition are written
 * by webhook-outbox.ts inside that transition's transaction; everything here runs on its own.
 */
export interface WebhookStore {
  insertEndpoint(endpoint: NewEndpoint): Promise<WebhookEndpoint>;
  /** An endpoint of the account, not deleted. */
  getEndpoint(accountId: string, id: string): Promise<WebhookEndpoint | undefined>;
  /** Any endpoint, deleted ones included (the dispatcher checks what it may still send to). */
  endpointById(id: string): Promise<WebhookEndpoint | undefined>;
  /** Endpoints not deleted, oldest first: one account's, or every account's. */
  listEndpoints(accountId?: string): Promise<WebhookEndpoint[]>;
  /** Deletes the endpoint and cancels its pending deliveries. */
  deleteEndpoint(accountId: string, id: string, now: number): Promise<boolean>;
  /** The current secret becomes the previous one, signing beside the new one until `previousUntil`. */
  rotateSecret(accountId: string, id: string, sealedSecret: string, previousUntil: number): Promise<WebhookEndpoint | undefined>;
  /** Stops deliveries to the endpoint (it answered 410) and cancels its pending ones. */
  disableEndpoint(id: string, reason: string): Promise<void>;
  enqueue(deliveries: readonly NewDelivery[], now: number): Promise<void>;
  /** Takes due pending deliveries (many processes safely): each claim bumps the fencing token. */
  claimDue(request: ClaimRequest): Promise<Array<{ delivery: WebhookDelivery; lease: DeliveryLease }>>;
  /** Records an attempt's end; false when the lease no longer holds (another dispatcher took it). */
  endAttempt(lease: DeliveryLease, end: AttemptEnd): Promise<boolean>;
  /** Ids of pending deliveries whose claim `owner` holds: none once that owner's dispatcher has stopped. */
  leasedBy(owner: string): Promise<string[]>;
  listDeliveries(endpointId: string, query: { limit: number; after?: string }): Promise<WebhookDelivery[]>;
  getDelivery(endpointId: string, id: string): Promise<WebhookDelivery | undefined>;
  /** One more attempt, due now, whatever the delivery's state (a manual retry). */
  retryDelivery(endpointId: string, id: string, now: number): Promise<WebhookDelivery | undefined>;
  /** Cluster-wide counts by status, for metrics. */
  countByStatus(): Promise<Record<string, number>>;
  /** The id of the account's newest active API key: family A's links in events are signed for it. */
  linkKeyOf(accountId: string): Promise<string | undefined>;
}
