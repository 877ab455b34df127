CREATE FUNCTION public.outbox_delete(message_ids text[]) RETURNS void
    LANGUAGE sql
    SET enable_seqscan TO 'off'
    SET enable_bitmapscan TO 'off'
    AS $$ DELETE FROM outbox WHERE message_id = ANY(message_ids) $$;

CREATE TABLE public.analytics_account_classes (
    tenant_id text NOT NULL,
    environment text NOT NULL,
    currency_code text NOT NULL,
    account_class text NOT NULL,
    debits numeric DEFAULT 0 NOT NULL,
    credits numeric DEFAULT 0 NOT NULL,
    CONSTRAINT analytics_account_classes_environment_check CHECK ((environment = ANY (ARRAY['test'::text, 'live'::text])))
);

CREATE TABLE public.analytics_cases (
    tenant_id text NOT NULL,
    environment text NOT NULL,
    case_type text NOT NULL,
    case_id text NOT NULL,
    currency_code text NOT NULL,
    held_amount numeric DEFAULT 0 NOT NULL,
    resolved boolean DEFAULT false NOT NULL,
    CONSTRAINT analytics_cases_case_type_shape CHECK ((case_type ~ '^[a-z][a-z_]*$'::text)),
    CONSTRAINT analytics_cases_environment_check CHECK ((environment = ANY (ARRAY['test'::text, 'live'::text])))
);

CREATE TABLE public.analytics_daily (
    tenant_id text NOT NULL,
    environment text NOT NULL,
    currency_code text NOT NULL,
    day date NOT NULL,
    kind text NOT NULL,
    entry_count bigint DEFAULT 0 NOT NULL,
    volume numeric DEFAULT 0 NOT NULL,
    fee_revenue numeric DEFAULT 0 NOT NULL,
    platform_commission numeric DEFAULT 0 NOT NULL,
    CONSTRAINT analytics_daily_environment_check CHECK ((environment = ANY (ARRAY['test'::text, 'live'::text])))
);

CREATE TABLE public.analytics_entries (
    journal_entry_id text NOT NULL,
    tenant_id text NOT NULL,
    environment text NOT NULL,
    kind text NOT NULL,
    posted_at timestamp with time zone NOT NULL,
    applied_at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE public.approval_policies (
    tenant_id text NOT NULL,
    environment text NOT NULL,
    case_type text NOT NULL,
    updated_by text NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT approval_policies_environment_check CHECK ((environment = ANY (ARRAY['test'::text, 'live'::text])))
);

CREATE TABLE public.approval_policy_rules (
    tenant_id text NOT NULL,
    environment text NOT NULL,
    case_type text NOT NULL,
    currency_code text NOT NULL,
    above_amount numeric NOT NULL,
    approvals_required smallint NOT NULL,
    approver_role text,
    CONSTRAINT approval_policy_rules_above_amount_check CHECK ((above_amount >= (0)::numeric)),
    CONSTRAINT approval_policy_rules_approvals_required_check CHECK ((approvals_required = ANY (ARRAY[1, 2]))),
    CONSTRAINT approval_policy_rules_check CHECK (((approvals_required = 2) OR (approver_role IS NOT NULL)))
);

CREATE TABLE public.awaiting_ledger (
    record_type text NOT NULL,
    record_id text NOT NULL,
    since timestamp with time zone NOT NULL
);

CREATE TABLE public.float_deposits (
    seq bigint NOT NULL,
    id text NOT NULL,
    tenant_id text NOT NULL,
    environment text NOT NULL,
    currency_code text NOT NULL,
    amount numeric NOT NULL,
    rail text NOT NULL,
    external_reference text,
    deposited_by text,
    note text,
    status text DEFAULT 'pending'::text NOT NULL,
    journal_entry_id text,
    failure_code text,
    created_at timestamp with time zone NOT NULL,
    finished_at timestamp with time zone,
    CONSTRAINT float_deposits_amount_check CHECK ((amount > (0)::numeric)),
    CONSTRAINT float_deposits_environment_check CHECK ((environment = ANY (ARRAY['test'::text, 'live'::text]))),
    CONSTRAINT float_deposits_rail_check CHECK ((rail = ANY (ARRAY['momo'::text, 'bank'::text, 'cash'::text]))),
    CONSTRAINT float_deposits_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'completed'::text, 'failed'::text])))
);

CREATE SEQUENCE public.float_deposits_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.float_deposits_seq_seq OWNED BY public.float_deposits.seq;

CREATE TABLE public.idempotency_keys (
    tenant_id text NOT NULL,
    environment text NOT NULL,
    idempotency_key text NOT NULL,
    fingerprint text NOT NULL,
    status text NOT NULL,
    lock_token uuid NOT NULL,
    locked_until timestamp with time zone,
    response_status smallint,
    response_headers jsonb,
    response_body bytea,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    completed_at timestamp with time zone,
    expires_at timestamp with time zone NOT NULL,
    CONSTRAINT idempotency_keys_environment_check CHECK ((environment = ANY (ARRAY['test'::text, 'live'::text]))),
    CONSTRAINT idempotency_keys_fingerprint_check CHECK ((char_length(fingerprint) = 64)),
    CONSTRAINT idempotency_keys_status_check CHECK ((((status = 'in_progress'::text) AND (locked_until IS NOT NULL)) OR ((status = 'completed'::text) AND (response_status IS NOT NULL) AND (response_headers IS NOT NULL) AND (response_body IS NOT NULL))))
);

CREATE TABLE public.inbox (
    message_id text NOT NULL,
    type text NOT NULL,
    processed_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);

CREATE TABLE public.knex_migrations (
    id integer NOT NULL,
    name character varying(255),
    batch integer,
    migration_time timestamp with time zone
);

CREATE SEQUENCE public.knex_migrations_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.knex_migrations_id_seq OWNED BY public.knex_migrations.id;

CREATE TABLE public.knex_migrations_lock (
    index integer NOT NULL,
    is_locked integer
);

CREATE SEQUENCE public.knex_migrations_lock_index_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.knex_migrations_lock_index_seq OWNED BY public.knex_migrations_lock.index;

CREATE TABLE public.outbox (
    id bigint NOT NULL,
    message_id text NOT NULL,
    exchange text NOT NULL,
    routing_key text NOT NULL,
    type text NOT NULL,
    payload text NOT NULL,
    headers jsonb DEFAULT '{}'::jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);

CREATE SEQUENCE public.outbox_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.outbox_id_seq OWNED BY public.outbox.id;

CREATE TABLE public.outbox_unanswered (
    message_id text NOT NULL,
    exchange text NOT NULL,
    routing_key text NOT NULL,
    type text NOT NULL,
    payload text NOT NULL,
    headers jsonb DEFAULT '{}'::jsonb NOT NULL,
    sent_at timestamp with time zone DEFAULT now() NOT NULL,
    resent integer DEFAULT 0 NOT NULL
);

CREATE TABLE public.reconciliation_marks (
    tenant_id text NOT NULL,
    environment text NOT NULL,
    reference_type text NOT NULL,
    record_verified_seq bigint DEFAULT 0 NOT NULL,
    record_seen_seq bigint DEFAULT 0 NOT NULL,
    record_seen_xmax bigint DEFAULT 0 NOT NULL,
    entry_verified_seq bigint DEFAULT 0 NOT NULL,
    entry_seen_seq bigint DEFAULT 0 NOT NULL,
    entry_seen_xmax bigint DEFAULT 0 NOT NULL,
    open_records jsonb DEFAULT '[]'::jsonb NOT NULL
);

CREATE TABLE public.sandbox_rail_deliveries (
    case_id text NOT NULL,
    destination jsonb NOT NULL,
    amount numeric NOT NULL,
    currency_code text NOT NULL,
    status text NOT NULL,
    rail_reference text NOT NULL,
    failure_reason text,
    calls integer DEFAULT 1 NOT NULL,
    delivered_at timestamp with time zone DEFAULT now() NOT NULL,
    last_called_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT sandbox_rail_deliveries_amount_check CHECK ((amount > (0)::numeric)),
    CONSTRAINT sandbox_rail_deliveries_calls_check CHECK ((calls >= 1)),
    CONSTRAINT sandbox_rail_deliveries_status_check CHECK ((status = ANY (ARRAY['succeeded'::text, 'failed'::text])))
);

CREATE TABLE public.tenants (
    id text NOT NULL,
    default_currency text NOT NULL,
    allowed_currencies text[] NOT NULL,
    max_transaction_amount numeric NOT NULL,
    config_occurred_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT tenants_allowed_currencies_check CHECK ((cardinality(allowed_currencies) > 0)),
    CONSTRAINT tenants_default_currency_check CHECK ((default_currency ~ '^[A-Z]{3}$'::text)),
    CONSTRAINT tenants_max_transaction_amount_check CHECK ((max_transaction_amount > (0)::numeric))
);

CREATE TABLE public.withdrawals (
    seq bigint NOT NULL,
    id text NOT NULL,
    tenant_id text NOT NULL,
    environment text NOT NULL,
    source text NOT NULL,
    currency_code text NOT NULL,
    amount numeric NOT NULL,
    payout_method text NOT NULL,
    destination jsonb NOT NULL,
    narration text,
    requested_by text NOT NULL,
    status text DEFAULT 'pending'::text NOT NULL,
    hold_entry_id text,
    failure_code text,
    decided_by text,
    decided_at timestamp with time zone,
    rejection_reason text,
    decision_entry_id text,
    decision_failure_code text,
    created_at timestamp with time zone NOT NULL,
    rail_started_at timestamp with time zone,
    rail_lease_until timestamp with time zone,
    rail_reference text,
    rail_failure_reason text,
    outcome_entry_id text,
    outcome_failure_code text,
    approvals_required smallint DEFAULT 1 NOT NULL,
    approver_role text,
    first_approved_by text,
    first_approved_at timestamp with time zone,
    CONSTRAINT withdrawals_amount_check CHECK ((amount > (0)::numeric)),
    CONSTRAINT withdrawals_approvals_required_check CHECK ((approvals_required = ANY (ARRAY[1, 2]))),
    CONSTRAINT withdrawals_check CHECK (((status <> ALL (ARRAY['approved'::text, 'rejected'::text])) OR ((hold_entry_id IS NOT NULL) AND (decided_by IS NOT NULL) AND (decided_at IS NOT NULL)))),
    CONSTRAINT withdrawals_check1 CHECK (((decided_by IS NULL) OR (decided_by <> requested_by))),
    CONSTRAINT withdrawals_check2 CHECK (((failure_code IS NULL) OR (status = 'failed'::text))),
    CONSTRAINT withdrawals_currency_code_check CHECK ((currency_code ~ '^[A-Z]{3}$'::text)),
    CONSTRAINT withdrawals_environment_check CHECK ((environment = ANY (ARRAY['test'::text, 'live'::text]))),
    CONSTRAINT withdrawals_first_approval CHECK (((first_approved_by IS NULL) OR ((approvals_required = 2) AND (first_approved_at IS NOT NULL)))),
    CONSTRAINT withdrawals_payout_method_check CHECK ((payout_method = ANY (ARRAY['momo'::text, 'bank'::text, 'cash'::text]))),
    CONSTRAINT withdrawals_rail_outcome CHECK (((status <> ALL (ARRAY['completed'::text, 'failed'::text])) OR (hold_entry_id IS NULL) OR (rail_reference IS NOT NULL))),
    CONSTRAINT withdrawals_source_check CHECK ((source = ANY (ARRAY['tenant_fees'::text, 'operating_float'::text]))),
    CONSTRAINT withdrawals_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'approved'::text, 'rejected'::text, 'completed'::text, 'failed'::text])))
);

CREATE SEQUENCE public.withdrawals_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.withdrawals_seq_seq OWNED BY public.withdrawals.seq;

ALTER TABLE ONLY public.float_deposits ALTER COLUMN seq SET DEFAULT nextval('public.float_deposits_seq_seq'::regclass);

ALTER TABLE ONLY public.knex_migrations ALTER COLUMN id SET DEFAULT nextval('public.knex_migrations_id_seq'::regclass);

ALTER TABLE ONLY public.knex_migrations_lock ALTER COLUMN index SET DEFAULT nextval('public.knex_migrations_lock_index_seq'::regclass);

ALTER TABLE ONLY public.outbox ALTER COLUMN id SET DEFAULT nextval('public.outbox_id_seq'::regclass);

ALTER TABLE ONLY public.withdrawals ALTER COLUMN seq SET DEFAULT nextval('public.withdrawals_seq_seq'::regclass);

ALTER TABLE ONLY public.analytics_account_classes
    ADD CONSTRAINT analytics_account_classes_pkey PRIMARY KEY (tenant_id, environment, currency_code, account_class);

ALTER TABLE ONLY public.analytics_cases
    ADD CONSTRAINT analytics_cases_pkey PRIMARY KEY (tenant_id, environment, case_type, case_id, currency_code);

ALTER TABLE ONLY public.analytics_daily
    ADD CONSTRAINT analytics_daily_pkey PRIMARY KEY (tenant_id, environment, currency_code, day, kind);

ALTER TABLE ONLY public.analytics_entries
    ADD CONSTRAINT analytics_entries_pkey PRIMARY KEY (journal_entry_id);

ALTER TABLE ONLY public.approval_policies
    ADD CONSTRAINT approval_policies_pkey PRIMARY KEY (tenant_id, environment, case_type);

ALTER TABLE ONLY public.approval_policy_rules
    ADD CONSTRAINT approval_policy_rules_pkey PRIMARY KEY (tenant_id, environment, case_type, currency_code);

ALTER TABLE ONLY public.awaiting_ledger
    ADD CONSTRAINT awaiting_ledger_pkey PRIMARY KEY (record_type, record_id);

ALTER TABLE ONLY public.float_deposits
    ADD CONSTRAINT float_deposits_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.float_deposits
    ADD CONSTRAINT float_deposits_seq_key UNIQUE (seq);

ALTER TABLE ONLY public.idempotency_keys
    ADD CONSTRAINT idempotency_keys_pkey PRIMARY KEY (tenant_id, environment, idempotency_key);

ALTER TABLE ONLY public.inbox
    ADD CONSTRAINT inbox_pkey PRIMARY KEY (message_id);

ALTER TABLE ONLY public.knex_migrations_lock
    ADD CONSTRAINT knex_migrations_lock_pkey PRIMARY KEY (index);

ALTER TABLE ONLY public.knex_migrations
    ADD CONSTRAINT knex_migrations_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.outbox
    ADD CONSTRAINT outbox_message_id_unique UNIQUE (message_id);

ALTER TABLE ONLY public.outbox
    ADD CONSTRAINT outbox_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.outbox_unanswered
    ADD CONSTRAINT outbox_unanswered_pkey PRIMARY KEY (message_id);

ALTER TABLE ONLY public.reconciliation_marks
    ADD CONSTRAINT reconciliation_marks_pkey PRIMARY KEY (tenant_id, environment, reference_type);

ALTER TABLE ONLY public.sandbox_rail_deliveries
    ADD CONSTRAINT sandbox_rail_deliveries_pkey PRIMARY KEY (case_id);

ALTER TABLE ONLY public.tenants
    ADD CONSTRAINT tenants_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.withdrawals
    ADD CONSTRAINT withdrawals_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.withdrawals
    ADD CONSTRAINT withdrawals_seq_key UNIQUE (seq);

CREATE INDEX analytics_cases_pending ON public.analytics_cases USING btree (tenant_id, environment) WHERE (NOT resolved);

CREATE INDEX analytics_daily_environment_day ON public.analytics_daily USING btree (environment, day);

CREATE INDEX analytics_entries_posted_at ON public.analytics_entries USING btree (posted_at DESC);

CREATE INDEX analytics_entries_scope_posted_at ON public.analytics_entries USING btree (tenant_id, environment, posted_at DESC);

CREATE INDEX awaiting_ledger_since ON public.awaiting_ledger USING btree (record_type, since);

CREATE INDEX float_deposits_scope_amount_seq ON public.float_deposits USING btree (tenant_id, environment, amount, seq);

CREATE INDEX float_deposits_scope_seq ON public.float_deposits USING btree (tenant_id, environment, seq DESC);

CREATE INDEX idempotency_keys_expires_at_idx ON public.idempotency_keys USING btree (expires_at);

CREATE INDEX idempotency_keys_in_flight ON public.idempotency_keys USING btree (created_at) WHERE (status = 'in_progress'::text);

CREATE INDEX inbox_processed_at_brin ON public.inbox USING brin (processed_at);

CREATE INDEX outbox_unanswered_sent_at ON public.outbox_unanswered USING btree (sent_at);

CREATE INDEX withdrawals_approved ON public.withdrawals USING btree (seq) WHERE (status = 'approved'::text);

CREATE INDEX withdrawals_pending ON public.withdrawals USING btree (tenant_id, environment, seq) WHERE (status = 'pending'::text);

CREATE INDEX withdrawals_scope_amount_seq ON public.withdrawals USING btree (tenant_id, environment, amount, seq);

CREATE INDEX withdrawals_scope_seq ON public.withdrawals USING btree (tenant_id, environment, seq DESC);

ALTER TABLE ONLY public.approval_policy_rules
    ADD CONSTRAINT approval_policy_rules_tenant_id_environment_case_type_fkey FOREIGN KEY (tenant_id, environment, case_type) REFERENCES public.approval_policies(tenant_id, environment, case_type) ON DELETE CASCADE;
