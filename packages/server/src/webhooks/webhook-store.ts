import type { Lease } from '../domain/lease.ts';
import type { AttemptEnd, DeliveryStatus, DisabledBy, WebhookDelivery, WebhookEndpoint } from './webhook-events.ts';

export type NewEndpoint = Omit<
  WebhookEndpoint,
  'audience' | 'status' | 'disabledReason' | 'disabledBy' | 'enabledAt' | 'previousSecret' | 'previousSecretUntil'
>;
/**
 * Enable an endpoint, or disable it saying by whom and why. An account's enable leaves an
 * endpoint the operator disabled as it is (decided in the same statement, so it cannot race).
 */
export type EndpointSwitch =
  | { enabled: true; by: Exclude<DisabledBy, 'server'>; now: number }
  | { enabled: false; by: Exclude<DisabledBy, 'server'>; reason: string };
export type NewDelivery = Pick<
  WebhookDelivery,
  'id' | 'eventId' | 'endpointId' | 'accountId' | 'eventType' | 'taskId' | 'createdAt' | 'maxAttempts'
>;

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
  /**
   * Endpoints not deleted, oldest first: one account's, or every account's; with a page, `limit`
   * of them after the endpoint `after` (none after an id that was never an endpoint).
   */
  listEndpoints(accountId?: string, page?: { limit: number; after?: string }): Promise<WebhookEndpoint[]>;
  /** Deletes the endpoint and cancels its pending deliveries. */
  deleteEndpoint(accountId: string, id: string, now: number): Promise<boolean>;
  /** The current secret becomes the previous one, signing beside the new one until `previousUntil`. */
  rotateSecret(
    accountId: string,
    id: string,
    sealedSecret: string,
    previousUntil: number,
  ): Promise<WebhookEndpoint | undefined>;
  /** Stops deliveries to the endpoint (it answered 410) and cancels its pending ones. */
  disableEndpoint(id: string, reason: string): Promise<void>;
  /**
   * Enables an endpoint of the account (new events reach it again; those from while it was
   * disabled are not sent) or disables it, cancelling its pending deliveries. Undefined when the
   * account has no such endpoint, or when an account's enable meets the operator's disable.
   */
  switchEndpoint(accountId: string, id: string, change: EndpointSwitch): Promise<WebhookEndpoint | undefined>;
  /**
   * Since when the endpoint has been failing: the creation time of its oldest delivery that failed
   * for good after both its last successful one and `notBefore` (when it was last enabled);
   * undefined when none failed since.
   */
  failingSince(endpointId: string, notBefore: number): Promise<number | undefined>;
  /** Deliveries of each endpoint by status (every status present, zeros included). */
  deliveryCounts(endpointIds: readonly string[]): Promise<Map<string, Record<DeliveryStatus, number>>>;
  enqueue(deliveries: readonly NewDelivery[], now: number): Promise<void>;
  /** Takes due pending deliveries (many processes safely): each claim bumps the fencing token. */
  claimDue(request: ClaimRequest): Promise<Array<{ delivery: WebhookDelivery; lease: Lease }>>;
  /** Records an attempt's end; false when the lease no longer holds (another dispatcher took it). */
  endAttempt(lease: Lease, end: AttemptEnd): Promise<boolean>;
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
