import { Migrator, sql, type Kysely, type Migration } from 'kysely';

/** The default subscription of an endpoint until migration 0141, as endpoints stored it. */
const TASK_EVENTS_BEFORE_0141 = ['video.completed', 'video.failed', 'video.canceled', 'video.expired'];

/**
 * Migrations shared by SQLite and PostgreSQL: only types and statements both understand.
 * Append new ones; never edit one that has shipped.
 */
const migrations: Record<string, Migration> = {
  '0001_initial': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('accounts')
        .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('name', 'varchar(200)', (c) => c.notNull().unique())
        .addColumn('models', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('api_keys')
        .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('account_id', 'varchar(64)', (c) => c.notNull().references('accounts.id'))
        .addColumn('hash', 'varchar(128)', (c) => c.notNull().unique())
        .addColumn('prefix', 'varchar(32)', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('revoked_at', 'bigint')
        .execute();
      await db.schema
        .createTable('files')
        .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('account_id', 'varchar(64)', (c) => c.notNull().references('accounts.id'))
        .addColumn('filename', 'varchar(255)', (c) => c.notNull())
        .addColumn('bytes', 'bigint', (c) => c.notNull())
        .addColumn('mime_type', 'varchar(100)', (c) => c.notNull())
        .addColumn('purpose', 'varchar(50)', (c) => c.notNull())
        .addColumn('blob_key', 'varchar(255)', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('tasks')
        .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('account_id', 'varchar(64)', (c) => c.notNull().references('accounts.id'))
        .addColumn('family', 'varchar(1)', (c) => c.notNull())
        .addColumn('kind', 'varchar(16)', (c) => c.notNull())
        .addColumn('model', 'varchar(200)', (c) => c.notNull())
        .addColumn('backend', 'varchar(100)', (c) => c.notNull())
        .addColumn('status', 'varchar(16)', (c) => c.notNull())
        .addColumn('progress', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('params', 'text', (c) => c.notNull())
        .addColumn('error_code', 'varchar(64)')
        .addColumn('error_message', 'text')
        .addColumn('result_key', 'varchar(255)')
        .addColumn('result_bytes', 'bigint')
        .addColumn('result_etag', 'varchar(100)')
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('lease_owner', 'varchar(200)')
        .addColumn('lease_token', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('lease_expires_at', 'bigint')
        .addColumn('available_at', 'bigint', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('started_at', 'bigint')
        .addColumn('finished_at', 'bigint')
        .addColumn('expires_at', 'bigint')
        .execute();
      // The claim scans queued tasks of a backend oldest first; the reaper and the retention
      // sweeper look for running leases and due results by time.
      await db.schema.createIndex('tasks_claim').on('tasks').columns(['status', 'backend', 'available_at']).execute();
      await db.schema.createIndex('tasks_lease').on('tasks').columns(['status', 'lease_expires_at']).execute();
      await db.schema.createIndex('tasks_expiry').on('tasks').columns(['status', 'expires_at']).execute();
      await db.schema.createIndex('tasks_account').on('tasks').columns(['account_id', 'id']).execute();
      await db.schema.createIndex('files_account').on('files').columns(['account_id']).execute();
    },
  },
  '0002_idempotency': {
    async up(db: Kysely<any>) {
      // One row per (account, Idempotency-Key): reserved while the first request runs, then
      // pointing at the task it created, written in the same transaction as that task.
      await db.schema
        .createTable('idempotency_keys')
        .addColumn('account_id', 'varchar(64)', (c) => c.notNull().references('accounts.id'))
        .addColumn('key', 'varchar(255)', (c) => c.notNull())
        .addColumn('request_hash', 'varchar(64)', (c) => c.notNull())
        .addColumn('task_id', 'varchar(64)')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('idempotency_keys_pk', ['account_id', 'key'])
        .execute();
      await db.schema.alterTable('tasks').addColumn('idempotency_key', 'varchar(255)').execute();
      await db.schema.createIndex('tasks_account_family').on('tasks').columns(['account_id', 'family', 'id']).execute();
    },
  },
  '0003_backend_state': {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('tasks').addColumn('backend_state', 'text').execute();
    },
  },
  '0004_attempts': {
    async up(db: Kysely<any>) {
      // One row per attempt: who ran it, when, and how it ended (for operators and retries).
      await db.schema
        .createTable('task_attempts')
        .addColumn('task_id', 'varchar(64)', (c) => c.notNull().references('tasks.id'))
        .addColumn('attempt', 'bigint', (c) => c.notNull())
        .addColumn('worker', 'varchar(200)', (c) => c.notNull())
        .addColumn('started_at', 'bigint', (c) => c.notNull())
        .addColumn('ended_at', 'bigint')
        .addColumn('outcome', 'varchar(32)')
        .addColumn('error_code', 'varchar(64)')
        .addPrimaryKeyConstraint('task_attempts_pk', ['task_id', 'attempt'])
        .execute();
      // Fair claiming walks the accounts with queued work of a lane and each one's oldest task.
      await db.schema
        .createIndex('tasks_lane_account')
        .on('tasks')
        .columns(['backend', 'status', 'account_id', 'available_at'])
        .execute();
    },
  },
  '0005_result_duration': {
    async up(db: Kysely<any>) {
      // The measured length of a result: an edit or extension knows it only after probing its input.
      await db.schema.alterTable('tasks').addColumn('result_duration_ms', 'bigint').execute();
    },
  },
  '0010_ledger': {
    async up(db: Kysely<any>) {
      // Invariant 7, docs/architecture.md: a task's price and what the upstream charged, once known.
      await db.schema.alterTable('tasks').addColumn('cost_usd_ticks', 'bigint').execute();
      await db.schema.alterTable('tasks').addColumn('upstream_cost_usd_ticks', 'bigint').execute();
      // An account without a row is unmetered and unlimited (the default). The balance and the
      // sum of open holds move only together with a ledger entry, in one transaction.
      await db.schema
        .createTable('account_plans')
        .addColumn('account_id', 'varchar(64)', (c) => c.primaryKey().references('accounts.id'))
        .addColumn('metered', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('balance_usd_ticks', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('held_usd_ticks', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('rpm_limit', 'integer')
        .addColumn('max_active_tasks', 'integer')
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
      // Append-only. At most one entry of each kind per task: a hold is settled or released once.
      await db.schema
        .createTable('ledger_entries')
        .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('account_id', 'varchar(64)', (c) => c.notNull().references('accounts.id'))
        .addColumn('task_id', 'varchar(64)')
        .addColumn('kind', 'varchar(16)', (c) => c.notNull())
        .addColumn('amount_usd_ticks', 'bigint', (c) => c.notNull())
        .addColumn('reason', 'text', (c) => c.notNull())
        .addColumn('idempotency_key', 'varchar(255)')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('ledger_task_kind')
        .on('ledger_entries')
        .columns(['task_id', 'kind'])
        .unique()
        .execute();
      await db.schema
        .createIndex('ledger_account_key')
        .on('ledger_entries')
        .columns(['account_id', 'idempotency_key'])
        .unique()
        .execute();
      await db.schema
        .createIndex('ledger_account_time')
        .on('ledger_entries')
        .columns(['account_id', 'created_at'])
        .execute();
      // Fixed one-minute windows of creates per API key, shared by every API process.
      await db.schema
        .createTable('rate_windows')
        .addColumn('key_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('window_start', 'bigint', (c) => c.notNull())
        .addColumn('count', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('rate_windows_pk', ['key_id', 'window_start'])
        .execute();
    },
  },
  '0020_webhooks': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('webhook_endpoints')
        .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('account_id', 'varchar(64)', (c) => c.notNull().references('accounts.id'))
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('events', 'text', (c) => c.notNull())
        .addColumn('secret', 'text', (c) => c.notNull())
        .addColumn('previous_secret', 'text')
        .addColumn('previous_secret_until', 'bigint')
        .addColumn('status', 'varchar(16)', (c) => c.notNull())
        .addColumn('disabled_reason', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('deleted_at', 'bigint')
        .execute();
      await db.schema
        .createIndex('webhook_endpoints_account')
        .on('webhook_endpoints')
        .columns(['account_id', 'status'])
        .execute();
      // The outbox: written in the transaction of the task transition it reports (invariant 8).
      await db.schema
        .createTable('webhook_deliveries')
        .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('event_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('endpoint_id', 'varchar(64)', (c) => c.notNull().references('webhook_endpoints.id'))
        .addColumn('account_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('event_type', 'varchar(64)', (c) => c.notNull())
        .addColumn('task_id', 'varchar(64)')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('status', 'varchar(16)', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('max_attempts', 'integer', (c) => c.notNull())
        .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
        .addColumn('lease_owner', 'varchar(200)')
        .addColumn('lease_token', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('last_status_code', 'integer')
        .addColumn('last_error', 'text')
        .addColumn('delivered_at', 'bigint')
        .execute();
      // The dispatcher takes due pending rows; the API lists an endpoint's deliveries newest first.
      await db.schema
        .createIndex('webhook_deliveries_due')
        .on('webhook_deliveries')
        .columns(['status', 'next_attempt_at'])
        .execute();
      await db.schema
        .createIndex('webhook_deliveries_endpoint')
        .on('webhook_deliveries')
        .columns(['endpoint_id', 'id'])
        .execute();
    },
  },
  '0030_relay_channels': {
    async up(db: Kysely<any>) {
      // Relay channel state shared by every worker process (generators/relay/sql-channel-health.ts):
      // the circuit breaker and the operator's runtime overrides, one row per upstream channel.
      await db.schema
        .createTable('relay_channels')
        .addColumn('channel_id', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('state', 'varchar(16)', (c) => c.notNull())
        .addColumn('failures', 'bigint', (c) => c.notNull())
        .addColumn('window_started_at', 'bigint', (c) => c.notNull())
        .addColumn('opened_at', 'bigint')
        .addColumn('probe_until', 'bigint')
        .addColumn('enabled', 'integer')
        .addColumn('weight', 'double precision')
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
      // A task that holds one of a channel's concurrent slots, until it ends (or the hold expires).
      await db.schema
        .createTable('relay_channel_slots')
        .addColumn('channel_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('task_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('relay_channel_slots_pk', ['channel_id', 'task_id'])
        .execute();
      // One row per create sent, kept a minute: the requests-per-minute window.
      await db.schema
        .createTable('relay_channel_submits')
        .addColumn('channel_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('relay_channel_submits_at')
        .on('relay_channel_submits')
        .columns(['channel_id', 'at'])
        .execute();
    },
  },
  '0040_listing_indexes': {
    async up(db: Kysely<any>) {
      // Listings filtered by state or model walk only the matching rows, newest first: without
      // these a `status=FAILURE` page of a large account read every task of it (bench/poll-at-scale).
      // Both columns are set at insert (status also at each transition, one entry moved).
      await db.schema
        .createIndex('tasks_account_status')
        .on('tasks')
        .columns(['account_id', 'family', 'status', 'id'])
        .execute();
      await db.schema
        .createIndex('tasks_account_model')
        .on('tasks')
        .columns(['account_id', 'family', 'model', 'id'])
        .execute();
    },
  },
  '0060_idempotency_listing_index': {
    async up(db: Kysely<any>) {
      // `?idempotency_key=` listings find the one task a key created with a probe instead of reading
      // every task of the account. Partial: only tasks submitted with a key have an entry, so the
      // insert of any other task (and every claim and finish, which leave the key alone) pays nothing.
      await db.schema
        .createIndex('tasks_account_idempotency')
        .on('tasks')
        .columns(['account_id', 'family', 'idempotency_key', 'id'])
        .where(sql.ref('idempotency_key'), 'is not', null)
        .execute();
    },
  },
  '0080_webhook_operator': {
    async up(db: Kysely<any>) {
      // Who disabled an endpoint decides who may enable it again: an account may undo its own
      // disable and the server's (after a 410), never the operator's.
      await db.schema.alterTable('webhook_endpoints').addColumn('disabled_by', 'varchar(16)').execute();
      // Since when an endpoint has been enabled: failures before a re-enable do not count
      // towards disabling it again for failing every delivery.
      await db.schema.alterTable('webhook_endpoints').addColumn('enabled_at', 'bigint').execute();
      await db
        .updateTable('webhook_endpoints')
        .set((eb: any) => ({ enabled_at: eb.ref('created_at') }))
        .execute();
      await db
        .updateTable('webhook_endpoints')
        .set({ disabled_by: 'server' })
        .where('status', '=', 'disabled')
        .where('deleted_at', 'is', null)
        .execute();
      await db
        .updateTable('webhook_endpoints')
        .set({ disabled_by: 'account' })
        .where('deleted_at', 'is not', null)
        .execute();
      // The admin listing counts each endpoint's deliveries by status from the index alone.
      await db.schema
        .createIndex('webhook_deliveries_endpoint_status')
        .on('webhook_deliveries')
        .columns(['endpoint_id', 'status'])
        .execute();
    },
  },
  '0100_lane_account_next': {
    async up(db: Kysely<any>) {
      // A claim takes an account's oldest task by (available_at, id): with id in the index the scan
      // stops at the first one it may lock, instead of sorting every queued task of the account on
      // each claim (bench/engine.bench.ts). It serves every query the index it replaces did.
      await db.schema
        .createIndex('tasks_lane_account_next')
        .on('tasks')
        .columns(['backend', 'status', 'account_id', 'available_at', 'id'])
        .execute();
      await db.schema.dropIndex('tasks_lane_account').execute();
    },
  },
  '0110_webhook_endpoints_listing': {
    async up(db: Kysely<any>) {
      // The admin listing pages every account's endpoints oldest first: a page reads its rows from
      // this index instead of sorting all endpoints for each page.
      await db.schema
        .createIndex('webhook_endpoints_created')
        .on('webhook_endpoints')
        .columns(['created_at', 'id'])
        .execute();
    },
  },
  '0130_event_log': {
    async up(db: Kysely<any>) {
      // Every event an account's tasks make, with the body frozen in the transaction of the change it
      // reports (webhooks/webhook-outbox.ts): deliveries send it as written, `GET /v1/events` lists
      // it, and `recover` queues it again, for the retention period.
      await db.schema
        .createTable('events')
        .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('account_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('type', 'varchar(64)', (c) => c.notNull())
        .addColumn('task_id', 'varchar(64)')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('body', 'text', (c) => c.notNull())
        .execute();
      // Listings walk an account's events newest first (by id, which is time-ordered), filtered by
      // type or not: a page reads its own rows, however long the account's history.
      await db.schema.createIndex('events_account').on('events').columns(['account_id', 'id']).execute();
      await db.schema.createIndex('events_account_type').on('events').columns(['account_id', 'type', 'id']).execute();
      await db.schema.createIndex('events_created').on('events').columns(['created_at']).execute();
      // A per-request callback is an endpoint of one task: `task_id` set, never listed with the
      // account's own endpoints nor sent the account's other events.
      await db.schema.alterTable('webhook_endpoints').addColumn('task_id', 'varchar(64)').execute();
      await db.schema
        .createIndex('webhook_endpoints_account_task')
        .on('webhook_endpoints')
        .columns(['account_id', 'task_id', 'status'])
        .execute();
      // At most one delivery of an event per endpoint: a recovery run twice queues nothing twice.
      await db.schema
        .createIndex('webhook_deliveries_endpoint_event')
        .on('webhook_deliveries')
        .columns(['endpoint_id', 'event_id'])
        .unique()
        .execute();
    },
  },
  '0131_task_api_key': {
    async up(db: Kysely<any>) {
      // The API key a task was submitted with: creates per key are counted in the insert's
      // transaction (only accepted ones), and usage is reported per key.
      await db.schema.alterTable('tasks').addColumn('api_key_id', 'varchar(64)').execute();
    },
  },
  '0132_task_refunds': {
    async up(db: Kysely<any>) {
      // A `refund` entry names the `settle` entry it gives money back from, as a refund names its charge.
      await db.schema.alterTable('ledger_entries').addColumn('refers_to', 'varchar(64)').execute();
    },
  },
  '0133_key_quotas': {
    async up(db: Kysely<any>) {
      // Per API key quotas, checked and counted in the transaction that inserts a task. No row: no quota.
      await db.schema
        .createTable('key_quotas')
        .addColumn('key_id', 'varchar(64)', (c) => c.primaryKey().references('api_keys.id'))
        .addColumn('max_tasks', 'bigint')
        .addColumn('max_usd_ticks', 'bigint')
        .addColumn('tasks_used', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('usd_ticks_used', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
    },
  },
  '0134_price_groups': {
    async up(db: Kysely<any>) {
      // Accounts in a group pay the catalog's prices × ratio (parts per million), or the group's own
      // price per model. A task's hold fixes its price; the settlement follows from the hold.
      await db.schema
        .createTable('price_groups')
        .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('ratio_ppm', 'bigint', (c) => c.notNull())
        .addColumn('model_prices', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.alterTable('account_plans').addColumn('price_group', 'varchar(64)').execute();
    },
  },
  '0135_spend_caps': {
    async up(db: Kysely<any>) {
      // The operator's sanity caps per account: the most one task, and one UTC day of holds, may cost.
      await db.schema.alterTable('account_plans').addColumn('max_task_usd_ticks', 'bigint').execute();
      await db.schema.alterTable('account_plans').addColumn('max_daily_usd_ticks', 'bigint').execute();
    },
  },
  '0140_balance_alerts': {
    async up(db: Kysely<any>) {
      // An account's balance alert (billing/balance-alerts.ts): the threshold its available balance is
      // watched against, and since when it has been under it (null: armed). Both change in the
      // transaction of the ledger entry that crosses, so concurrent processes fire one alert.
      await db.schema.alterTable('account_plans').addColumn('balance_alert_usd_ticks', 'bigint').execute();
      await db.schema.alterTable('account_plans').addColumn('balance_low_since', 'bigint').execute();
    },
  },
  '0141_operator_endpoints': {
    async up(db: Kysely<any>) {
      // Whose endpoint a row is: the account's own, or the operator's (VIDGEN_OPERATOR_WEBHOOK_URL, one
      // row per account it is told about), which the account never sees and which gets only account events.
      await db.schema
        .alterTable('webhook_endpoints')
        .addColumn('audience', 'varchar(16)', (c) => c.notNull().defaultTo('account'))
        .execute();
      // Endpoints that took the default subscription ("every event", then the four task events) get
      // the new account event too; those that chose their events keep their choice.
      await db
        .updateTable('webhook_endpoints')
        .set({ events: JSON.stringify([...TASK_EVENTS_BEFORE_0141, 'account.balance_low']) })
        .where('events', '=', JSON.stringify(TASK_EVENTS_BEFORE_0141))
        .where('task_id', 'is', null)
        .execute();
    },
  },
  '0142_key_quota_periods': {
    async up(db: Kysely<any>) {
      // A key quota over the key's life (`total`) or per UTC month (`month`): the month's counters
      // carry the start of the month they count, and the submit that finds it past resets them.
      await db.schema
        .alterTable('key_quotas')
        .addColumn('period', 'varchar(8)', (c) => c.notNull().defaultTo('total'))
        .execute();
      await db.schema.alterTable('key_quotas').addColumn('period_start', 'bigint').execute();
    },
  },
  '0150_task_revision': {
    async up(db: Kysely<any>) {
      // Raised by every change of a task's status or progress: the id of a task's stream events, which
      // a reconnecting client sends back to any API process (docs/streams.md).
      await db.schema
        .alterTable('tasks')
        .addColumn('revision', 'bigint', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  },
  '0160_task_trace_context': {
    async up(db: Kysely<any>) {
      // The W3C trace context a task was submitted in (JSON of traceparent and tracestate), null when
      // tracing was off: the worker that claims it, in any process, continues that trace.
      await db.schema.alterTable('tasks').addColumn('trace_context', 'text').execute();
    },
  },
  '0161_event_trace_context': {
    async up(db: Kysely<any>) {
      // The trace context an event happened in: every delivery of it, retries and recoveries
      // included, continues that trace (docs/observability.md).
      await db.schema.alterTable('events').addColumn('trace_context', 'text').execute();
    },
  },
  '0190_operator_console': {
    async up(db: Kysely<any>) {
      // The operator's task list walks every account's tasks newest first, by status or by account and
      // status, a page at a time: each filter reads its own rows from an index, however many tasks exist.
      await db.schema.createIndex('tasks_status_id').on('tasks').columns(['status', 'id']).execute();
      await db.schema
        .createIndex('tasks_account_status_id')
        .on('tasks')
        .columns(['account_id', 'status', 'id'])
        .execute();
      // Failed deliveries across accounts, newest first; a task's own deliveries on its page.
      await db.schema
        .createIndex('webhook_deliveries_status_id')
        .on('webhook_deliveries')
        .columns(['status', 'id'])
        .execute();
      await db.schema.createIndex('webhook_deliveries_task').on('webhook_deliveries').columns(['task_id']).execute();
      // Tasks ended and money spent per UTC hour (billing/usage-rollup.ts), written in the transaction of
      // each task's end and each refund: usage charts and the overview read hours, never tasks.
      await db.schema
        .createTable('usage_hourly')
        .addColumn('hour', 'bigint', (c) => c.notNull())
        .addColumn('account_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('model', 'varchar(200)', (c) => c.notNull())
        .addColumn('tier', 'varchar(32)', (c) => c.notNull())
        .addColumn('outcome', 'varchar(16)', (c) => c.notNull())
        .addColumn('error_code', 'varchar(64)', (c) => c.notNull())
        .addColumn('tasks', 'bigint', (c) => c.notNull())
        .addColumn('spend_usd_ticks', 'bigint', (c) => c.notNull())
        .addColumn('rendered_ms', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('usage_hourly_pk', ['hour', 'account_id', 'model', 'tier', 'outcome', 'error_code'])
        .execute();
      const hour = sql`(t.finished_at / 3600000) * 3600000`;
      await sql`INSERT INTO usage_hourly (hour, account_id, model, tier, outcome, error_code, tasks, spend_usd_ticks,
          rendered_ms)
        SELECT ${hour}, t.account_id, t.model, 'default',
          CASE WHEN t.status = 'expired' THEN 'succeeded' ELSE t.status END, COALESCE(t.error_code, ''), COUNT(*),
          COALESCE(SUM(t.cost_usd_ticks), 0), COALESCE(SUM(t.result_duration_ms), 0)
        FROM tasks t WHERE t.finished_at IS NOT NULL AND t.status IN ('succeeded', 'expired', 'failed', 'canceled')
        GROUP BY ${hour}, t.account_id, t.model, CASE WHEN t.status = 'expired' THEN 'succeeded' ELSE t.status END,
          COALESCE(t.error_code, '')`.execute(db);
      // Every call made to a relay channel, kept five minutes: its p50 latency and error rate.
      await db.schema
        .createTable('relay_channel_calls')
        .addColumn('channel_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('at', 'bigint', (c) => c.notNull())
        .addColumn('latency_ms', 'integer', (c) => c.notNull())
        .addColumn('ok', 'integer', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('relay_channel_calls_at')
        .on('relay_channel_calls')
        .columns(['channel_id', 'at'])
        .execute();
    },
  },
  '0200_service_tiers': {
    async up(db: Kysely<any>) {
      // A task's tier and its claim order: a lane claims by rank first, then fairly within the rank
      // (store/sql/fair-claim.ts). The rank leads the claim index after the lane, so the skip-scan
      // over one rank's accounts probes that rank's rows alone however deep another rank's backlog.
      await db.schema
        .alterTable('tasks')
        .addColumn('service_tier', 'varchar(16)', (c) => c.notNull().defaultTo('default'))
        .execute();
      await db.schema
        .alterTable('tasks')
        .addColumn('claim_rank', 'integer', (c) => c.notNull().defaultTo(1))
        .execute();
      await db.schema.alterTable('tasks').addColumn('batch_id', 'varchar(64)').execute();
      await db.schema
        .createIndex('tasks_lane_rank_account_next')
        .on('tasks')
        .columns(['backend', 'status', 'claim_rank', 'account_id', 'available_at', 'id'])
        .execute();
      await db.schema.dropIndex('tasks_lane_account_next').execute();
      await db.schema.createIndex('tasks_batch').on('tasks').columns(['batch_id', 'status']).execute();
      await db.schema.alterTable('accounts').addColumn('service_tiers', 'text').execute();
    },
  },
  '0201_file_lines': {
    async up(db: Kysely<any>) {
      // The lines of a batch's JSONL files, counted once as they are stored (docs/batch.md).
      await db.schema.alterTable('files').addColumn('lines', 'integer').execute();
    },
  },
  '0220_task_deleted_at': {
    async up(db: Kysely<any>) {
      // Deleted by its owner is not expired: the content route answers each in its own words. Tasks
      // deleted before this column have only their expiry, and keep expiry's answer.
      await db.schema.alterTable('tasks').addColumn('deleted_at', 'bigint').execute();
    },
  },
  '0240_result_delivery': {
    async up(db: Kysely<any>) {
      // What became of the upload URL or file a task asked its video to go to (docs/storage.md), written
      // by the completing statement itself.
      await db.schema.alterTable('tasks').addColumn('result_delivery', 'text').execute();
    },
  },
  '0241_zero_retention': {
    async up(db: Kysely<any>) {
      // An account whose videos are kept only until they reach its own storage (docs/storage.md).
      await db.schema
        .alterTable('accounts')
        .addColumn('zero_retention', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  },
  '0242_file_expiry': {
    async up(db: Kysely<any>) {
      // Files that end by themselves (a video kept for `storage_options.expires_after`): the retention
      // sweeper deletes them by this index.
      await db.schema.alterTable('files').addColumn('expires_at', 'bigint').execute();
      await db.schema.createIndex('files_expires_at').on('files').column('expires_at').execute();
    },
  },
  '0260_batches': {
    async up(db: Kysely<any>) {
      // OpenAI's Batch object (docs/batch.md): the lines are tasks (`tasks.batch_id`) and line records;
      // the row holds the counts the task changes keep, and a lease its sweeper claims it with.
      await db.schema
        .createTable('batches')
        .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('account_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('api_key_id', 'varchar(64)')
        .addColumn('endpoint', 'varchar(64)', (c) => c.notNull())
        .addColumn('input_file_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('completion_window', 'varchar(16)', (c) => c.notNull())
        .addColumn('status', 'varchar(16)', (c) => c.notNull())
        .addColumn('ending', 'varchar(16)')
        .addColumn('errors', 'text')
        .addColumn('metadata', 'text')
        .addColumn('total', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('queued', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('completed', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('failed', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('cost_usd_ticks', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('output_file_id', 'varchar(64)')
        .addColumn('error_file_id', 'varchar(64)')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('in_progress_at', 'bigint')
        .addColumn('finalizing_at', 'bigint')
        .addColumn('completed_at', 'bigint')
        .addColumn('failed_at', 'bigint')
        .addColumn('expired_at', 'bigint')
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addColumn('cancelling_at', 'bigint')
        .addColumn('cancelled_at', 'bigint')
        .addColumn('lease_owner', 'varchar(128)')
        .addColumn('lease_token', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('lease_expires_at', 'bigint')
        .execute();
      await db.schema.createIndex('batches_account').on('batches').columns(['account_id', 'id']).execute();
      await db.schema.createIndex('batches_status').on('batches').columns(['status', 'lease_expires_at']).execute();
      // One record per line of the input file: its task, or why it has none; its frozen answer.
      await db.schema
        .createTable('batch_lines')
        .addColumn('batch_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('line', 'integer', (c) => c.notNull())
        .addColumn('id', 'varchar(64)', (c) => c.notNull())
        .addColumn('custom_id', 'text', (c) => c.notNull())
        .addColumn('request_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('task_id', 'varchar(64)')
        .addColumn('outcome', 'varchar(16)')
        .addColumn('status_code', 'integer')
        .addColumn('error', 'text')
        .addColumn('body', 'text')
        .addPrimaryKeyConstraint('batch_lines_pk', ['batch_id', 'line'])
        .execute();
      await db.schema.createIndex('batch_lines_task').on('batch_lines').column('task_id').execute();
    },
  },
  '0261_batch_line_custom_ids': {
    async up(db: Kysely<any>) {
      // A line's `custom_id` is checked against the lines before it by this index, chunk by chunk,
      // so no set of a file's ids is held in memory (engine/batches/batch-runner.ts).
      await db.schema
        .createIndex('batch_lines_custom_id')
        .on('batch_lines')
        .columns(['batch_id', 'custom_id'])
        .execute();
    },
  },
  '0262_batch_events': {
    async up(db: Kysely<any>) {
      // Endpoints that took the default subscription (every event, until now the task events and the
      // balance alert) get the batch events too; those that chose their events keep their choice.
      const before = [...TASK_EVENTS_BEFORE_0141, 'account.balance_low'];
      await db
        .updateTable('webhook_endpoints')
        .set({
          events: JSON.stringify([...before, 'batch.completed', 'batch.failed', 'batch.expired', 'batch.cancelled']),
        })
        .where('events', '=', JSON.stringify(before))
        .where('task_id', 'is', null)
        .where('audience', '=', 'account')
        .execute();
    },
  },
  '0270_video_characters': {
    async up(db: Kysely<any>) {
      // OpenAI's characters (docs/openai-videos.md): a name over a reference video kept as an upload of
      // the account, until the account deletes the character.
      await db.schema
        .createTable('video_characters')
        .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('account_id', 'varchar(64)', (c) => c.notNull().references('accounts.id'))
        .addColumn('name', 'varchar(200)', (c) => c.notNull())
        .addColumn('file_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
    },
  },
  '0280_tasks_status_model': {
    async up(db: Kysely<any>) {
      // The operator's overview counts the queued and running tasks of each model by probes of this
      // index (a skip-scan over the models, each count stopping at a cap), never reading task rows.
      await db.schema.createIndex('tasks_status_model').on('tasks').columns(['status', 'model']).execute();
    },
  },
};

/** The newest migration's name: where a migrated database's schema stands. */
export const LATEST_MIGRATION: string = Object.keys(migrations).sort().at(-1) as string;

/** Applies the migrations a database lacks; returns their names (none when it was up to date). */
export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(
      `database migration ${failed?.migrationName ?? ''} failed: ${(error as Error)?.message ?? 'unknown error'}`,
      { cause: error },
    );
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
