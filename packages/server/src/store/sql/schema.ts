import type { Generated } from 'kysely';

/** Table shapes as Kysely sees them. Times are epoch milliseconds; JSON is stored as text. */
export interface TasksTable {
  id: string;
  account_id: string;
  family: string;
  kind: string;
  model: string;
  backend: string;
  status: string;
  progress: number;
  params: string;
  error_code: string | null;
  error_message: string | null;
  result_key: string | null;
  result_bytes: number | null;
  result_etag: string | null;
  /** Length of the verified output in milliseconds (edits and extensions learn it only when they run). */
  result_duration_ms: number | null;
  /** What became of the delivery a task asked for (JSON of domain/delivery.ts's DeliveryOutcome; migration 0240). */
  result_delivery: string | null;
  attempts: number;
  lease_owner: string | null;
  lease_token: number;
  lease_expires_at: number | null;
  available_at: number;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
  expires_at: number | null;
  /** When its owner deleted it (migration 0220); null for a task never deleted (expiry is not deletion). */
  deleted_at: number | null;
  idempotency_key: string | null;
  backend_state: string | null;
  /** What the task cost its account (settled), 0 when it ended without a result; null while unsettled. */
  cost_usd_ticks: number | null;
  /** What a relayed task's upstream reported charging, where it says. */
  upstream_cost_usd_ticks: number | null;
  /** The API key the task was submitted with; null for tasks made before migration 0131 or without a key. */
  api_key_id: string | null;
  /**
   * The W3C trace context the task was submitted in, as JSON; null when tracing was off (migration
   * 0160). Read by the claim alone (fair-claim.ts), never by a poll.
   */
  trace_context: string | null;
  /** Raised by one with every change of status or progress (migration 0150; store/sql/task-revision.ts). */
  revision: Generated<number>;
  /** domain/task.ts ServiceTier (migration 0200). */
  service_tier: Generated<string>;
  /** The tier's claim order (domain/task.ts claimRankOf): the claim index leads with it. */
  claim_rank: Generated<number>;
  /** The batch whose line the task is; null for a task of its own. */
  batch_id: Generated<string | null>;
}

export interface IdempotencyKeysTable {
  account_id: string;
  key: string;
  request_hash: string;
  task_id: string | null;
  created_at: number;
}

export interface AccountsTable {
  id: string;
  name: string;
  models: string | null;
  created_at: number;
  /** Zero retention (migration 0241): submits must name an upload URL, and a delivered video is not kept. */
  zero_retention: Generated<number>;
  /** The service tiers its submits may name, as JSON; null: the default ones (migration 0200). */
  service_tiers: string | null;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  hash: string;
  prefix: string;
  created_at: number;
  revoked_at: number | null;
}

export interface FilesTable {
  id: string;
  account_id: string;
  filename: string;
  bytes: number;
  mime_type: string;
  purpose: string;
  blob_key: string;
  created_at: number;
  /** When the file is deleted (migration 0242); null: kept until its owner deletes it. */
  expires_at: number | null;
  /** Lines of a JSONL file; null for other files (migration 0201). */
  lines: Generated<number | null>;
}

/** OpenAI's characters: a name over a reference video, an upload of the account (migration 0270). */
export interface VideoCharactersTable {
  id: string;
  account_id: string;
  name: string;
  file_id: string;
  created_at: number;
}

export interface TaskAttemptsTable {
  task_id: string;
  attempt: number;
  worker: string;
  started_at: number;
  ended_at: number | null;
  outcome: string | null;
  error_code: string | null;
}

export interface AccountPlansTable {
  account_id: string;
  /** 1: submits hold their price against the balance; 0: unmetered. */
  metered: number;
  balance_usd_ticks: number;
  held_usd_ticks: number;
  rpm_limit: number | null;
  max_active_tasks: number | null;
  updated_at: number;
  /** The account's price group (migration 0134); null: the catalog's prices. */
  price_group: string | null;
  /** Sanity caps (migration 0135): the most one task's price, and a UTC day's holds, may be; null: none. */
  max_task_usd_ticks: number | null;
  max_daily_usd_ticks: number | null;
  /** Balance alert (migration 0140): the threshold of `balance − held`; null: no alert. */
  balance_alert_usd_ticks: number | null;
  /** When the available balance went under the threshold (the alert fired); null: armed. */
  balance_low_since: number | null;
}

/** A price group: the catalog's prices × ratio_ppm / 10⁶, or `model_prices` (JSON: model id → ticks per second). */
export interface PriceGroupsTable {
  id: string;
  ratio_ppm: number;
  model_prices: string;
  updated_at: number;
}

export interface LedgerEntriesTable {
  id: string;
  account_id: string;
  task_id: string | null;
  kind: string;
  amount_usd_ticks: number;
  reason: string;
  idempotency_key: string | null;
  created_at: number;
  /** A refund: the settle entry it gives back from (migration 0132). */
  refers_to: string | null;
}

/** An API key's quota and what it used (migration 0133; billing/key-quotas.ts). */
export interface KeyQuotasTable {
  key_id: string;
  max_tasks: number | null;
  max_usd_ticks: number | null;
  tasks_used: number;
  usd_ticks_used: number;
  updated_at: number;
  /** 'total' (over the key's life) or 'month' (per UTC month; migration 0142). */
  period: string;
  /** A month quota: the start (epoch ms) of the month the counters count; null before its first use. */
  period_start: number | null;
}

export interface RateWindowsTable {
  key_id: string;
  window_start: number;
  count: number;
}

/** A webhook endpoint of an account; secrets are encrypted at rest (webhooks/secret-box.ts). */
export interface WebhookEndpointsTable {
  id: string;
  account_id: string;
  url: string;
  /** JSON array of event types. */
  events: string;
  secret: string;
  /** The secret before the last rotation, still signing until `previous_secret_until`. */
  previous_secret: string | null;
  previous_secret_until: number | null;
  status: string;
  disabled_reason: string | null;
  /** 'server' (it answered 410), 'account' or 'operator'; null while enabled. */
  disabled_by: string | null;
  /** When it was last enabled (created, or enabled again); null only before migration 0080 filled it. */
  enabled_at: number | null;
  created_at: number;
  deleted_at: number | null;
  /** Set on a per-request callback: the one task whose events it gets (migration 0130). */
  task_id: string | null;
  /** 'account' (its own) or 'operator' (VIDGEN_OPERATOR_WEBHOOK_URL's, for this account's events; 0141). */
  audience: string;
}

/** An account's event, its webhook body frozen when it happened (migration 0130). */
export interface EventsTable {
  id: string;
  account_id: string;
  type: string;
  task_id: string | null;
  created_at: number;
  /** The JSON body every delivery of the event sends, byte for byte. */
  body: string;
  /** The W3C trace context the event happened in, as JSON, continued by its deliveries (migration 0161). */
  trace_context: string | null;
}

/** The outbox: one row per event and subscribed endpoint, written with the transition it reports. */
export interface WebhookDeliveriesTable {
  id: string;
  event_id: string;
  endpoint_id: string;
  account_id: string;
  event_type: string;
  task_id: string | null;
  created_at: number;
  status: string;
  attempts: number;
  max_attempts: number;
  next_attempt_at: number;
  lease_owner: string | null;
  lease_token: number;
  last_status_code: number | null;
  last_error: string | null;
  delivered_at: number | null;
}

/** Relay channels' shared state (migration 0030; generators/relay/sql-channel-health.ts). */
export interface RelayChannelsTable {
  channel_id: string;
  state: 'closed' | 'open' | 'half_open';
  failures: number;
  window_started_at: number;
  opened_at: number | null;
  probe_until: number | null;
  /** Operator override: 1 on, 0 off, null as the backends file says. */
  enabled: number | null;
  /** Operator override of the file's weight; null as the file says. */
  weight: number | null;
  updated_at: number;
}

export interface RelayChannelSlotsTable {
  channel_id: string;
  task_id: string;
  expires_at: number;
}

export interface RelayChannelSubmitsTable {
  channel_id: string;
  at: number;
}

/** Tasks ended and money spent per UTC hour (migration 0190, billing/usage-rollup.ts). */
export interface UsageHourlyTable {
  /** The hour's start, epoch milliseconds. */
  hour: number;
  account_id: string;
  model: string;
  tier: string;
  /** `succeeded`, `failed`, `canceled`, or `refund` (money given back that hour, no task counted). */
  outcome: string;
  /** The failure code, '' for none. */
  error_code: string;
  tasks: number;
  spend_usd_ticks: number;
  rendered_ms: number;
}

/** One call to a relay channel, kept five minutes (migration 0190). */
export interface RelayChannelCallsTable {
  channel_id: string;
  at: number;
  latency_ms: number;
  /** 1 when the upstream answered as a working channel does. */
  ok: number;
}

export interface Database {
  batches: BatchesTable;
  batch_lines: BatchLinesTable;
  usage_hourly: UsageHourlyTable;
  relay_channel_calls: RelayChannelCallsTable;
  account_plans: AccountPlansTable;
  ledger_entries: LedgerEntriesTable;
  rate_windows: RateWindowsTable;
  key_quotas: KeyQuotasTable;
  price_groups: PriceGroupsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  events: EventsTable;
  relay_channels: RelayChannelsTable;
  relay_channel_slots: RelayChannelSlotsTable;
  relay_channel_submits: RelayChannelSubmitsTable;
  task_attempts: TaskAttemptsTable;
  tasks: TasksTable;
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  files: FilesTable;
  video_characters: VideoCharactersTable;
  idempotency_keys: IdempotencyKeysTable;
}

export type { Generated };

/** OpenAI's Batch object and its sweeper's lease (migration 0260; docs/batch.md). */
export interface BatchesTable {
  id: string;
  account_id: string;
  api_key_id: string | null;
  endpoint: string;
  input_file_id: string;
  completion_window: string;
  status: string;
  /** How the batch is ending, once it stops queuing lines: completed, expired, cancelled or failed. */
  ending: string | null;
  /** JSON: the errors of a failed batch (OpenAI's `errors.data`). */
  errors: string | null;
  metadata: string | null;
  total: Generated<number>;
  /** Lines of the input file taken so far (queued as a task, or refused): where a resumed sweep goes on. */
  queued: Generated<number>;
  completed: Generated<number>;
  failed: Generated<number>;
  cost_usd_ticks: Generated<number>;
  output_file_id: string | null;
  error_file_id: string | null;
  created_at: number;
  in_progress_at: number | null;
  finalizing_at: number | null;
  completed_at: number | null;
  failed_at: number | null;
  expired_at: number | null;
  expires_at: number;
  cancelling_at: number | null;
  cancelled_at: number | null;
  lease_owner: string | null;
  lease_token: Generated<number>;
  lease_expires_at: number | null;
}

/** One line of a batch's input file (migration 0260). */
export interface BatchLinesTable {
  batch_id: string;
  line: number;
  /** `batch_req_…`, the id of its line in the output or error file. */
  id: string;
  custom_id: string;
  request_id: string;
  /** Null for a refused line. */
  task_id: string | null;
  /** Null while its task runs; `succeeded` or `failed` once it ended (refused lines: `failed`). */
  outcome: string | null;
  /** A refused line's HTTP status. */
  status_code: number | null;
  /** JSON `{code, message, param}` of a refused line or a failed task. */
  error: string | null;
  /** JSON: the answer frozen when the line ended (the finished task, or the refusal's envelope). */
  body: string | null;
}
