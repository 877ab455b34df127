CREATE FUNCTION public.outbox_delete(message_ids text[]) RETURNS void
    LANGUAGE sql
    SET enable_seqscan TO 'off'
    SET enable_bitmapscan TO 'off'
    AS $$ DELETE FROM outbox WHERE message_id = ANY(message_ids) $$;

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

CREATE TABLE public.bank_statement_imports (
    seq bigint NOT NULL,
    id text NOT NULL,
    tenant_id text NOT NULL,
    environment text NOT NULL,
    bank_code text NOT NULL,
    currency_code text NOT NULL,
    imported integer NOT NULL,
    duplicates integer NOT NULL,
    actor_type text NOT NULL,
    actor_id text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT bank_statement_imports_currency_code_check CHECK ((currency_code ~ '^[A-Z]{3}$'::text)),
    CONSTRAINT bank_statement_imports_environment_check CHECK ((environment = ANY (ARRAY['test'::text, 'live'::text])))
);

CREATE SEQUENCE public.bank_statement_imports_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.bank_statement_imports_seq_seq OWNED BY public.bank_statement_imports.seq;

CREATE TABLE public.bank_statement_lines (
    id bigint NOT NULL,
    import_id text NOT NULL,
    tenant_id text NOT NULL,
    environment text NOT NULL,
    bank_code text NOT NULL,
    currency_code text NOT NULL,
    line_date date NOT NULL,
    reference text NOT NULL,
    reference_key text NOT NULL,
    amount numeric NOT NULL,
    description text,
    deposit_id text,
    matched_at timestamp with time zone,
    CONSTRAINT bank_statement_lines_amount_check CHECK ((amount > (0)::numeric)),
    CONSTRAINT bank_statement_lines_environment_check CHECK ((environment = ANY (ARRAY['test'::text, 'live'::text]))),
    CONSTRAINT bank_statement_lines_matched CHECK (((deposit_id IS NULL) = (matched_at IS NULL)))
);

CREATE SEQUENCE public.bank_statement_lines_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.bank_statement_lines_id_seq OWNED BY public.bank_statement_lines.id;

CREATE TABLE public.deposits (
    seq bigint NOT NULL,
    id text NOT NULL,
    tenant_id text NOT NULL,
    environment text NOT NULL,
    wallet_id text NOT NULL,
    amount numeric NOT NULL,
    currency_code text NOT NULL,
    fee numeric DEFAULT 0 NOT NULL,
    commission numeric DEFAULT 0 NOT NULL,
    fee_schedule_id text,
    fee_rule_id text,
    source text NOT NULL,
    external_ref text NOT NULL,
    status text NOT NULL,
    rejection_reason text,
    command_id text,
    journal_entry_id text,
    provider_code text,
    phone_number text,
    bank_code text,
    slip_reference text,
    deposited_at timestamp with time zone,
    depositor_name text,
    verified_by text,
    verified_at timestamp with time zone,
    correlation_id text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT deposits_amount_check CHECK ((amount > (0)::numeric)),
    CONSTRAINT deposits_check CHECK (((fee >= (0)::numeric) AND (fee <= amount))),
    CONSTRAINT deposits_check1 CHECK (((commission >= (0)::numeric) AND (commission <= fee))),
    CONSTRAINT deposits_currency_code_check CHECK ((currency_code ~ '^[A-Z]{3}$'::text)),
    CONSTRAINT deposits_environment_check CHECK ((environment = ANY (ARRAY['test'::text, 'live'::text]))),
    CONSTRAINT deposits_momo_provider CHECK (((source <> 'momo'::text) OR (provider_code IS NOT NULL))),
    CONSTRAINT deposits_rejection_reason CHECK (((status = 'rejected'::text) = (rejection_reason IS NOT NULL))),
    CONSTRAINT deposits_slip_bank CHECK (((source <> 'bank_slip'::text) OR ((bank_code IS NOT NULL) AND (slip_reference IS NOT NULL)))),
    CONSTRAINT deposits_source_check CHECK ((source = ANY (ARRAY['momo'::text, 'bank_slip'::text]))),
    CONSTRAINT deposits_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'completed'::text, 'rejected'::text])))
);

CREATE SEQUENCE public.deposits_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.deposits_seq_seq OWNED BY public.deposits.seq;

CREATE TABLE public.fee_rules (
    seq bigint NOT NULL,
    id text NOT NULL,
    schedule_id text NOT NULL,
    transaction_type text NOT NULL,
    currency_code text NOT NULL,
    min_amount numeric,
    max_amount numeric,
    flat_fee numeric DEFAULT 0 NOT NULL,
    percentage_fee numeric DEFAULT 0 NOT NULL,
    min_fee numeric,
    max_fee numeric,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT fee_rules_band CHECK (((min_amount IS NULL) OR (max_amount IS NULL) OR (min_amount <= max_amount))),
    CONSTRAINT fee_rules_currency_code_check CHECK ((currency_code ~ '^[A-Z]{3}$'::text)),
    CONSTRAINT fee_rules_fee_bounds CHECK (((min_fee IS NULL) OR (max_fee IS NULL) OR (min_fee <= max_fee))),
    CONSTRAINT fee_rules_flat_fee_check CHECK ((flat_fee >= (0)::numeric)),
    CONSTRAINT fee_rules_max_amount_check CHECK ((max_amount >= (0)::numeric)),
    CONSTRAINT fee_rules_max_fee_check CHECK ((max_fee >= (0)::numeric)),
    CONSTRAINT fee_rules_min_amount_check CHECK ((min_amount >= (0)::numeric)),
    CONSTRAINT fee_rules_min_fee_check CHECK ((min_fee >= (0)::numeric)),
    CONSTRAINT fee_rules_percentage_fee_check CHECK (((percentage_fee >= (0)::numeric) AND (percentage_fee <= (100)::numeric))),
    CONSTRAINT fee_rules_transaction_type_check CHECK ((transaction_type = ANY (ARRAY['deposit'::text, 'transfer'::text, 'payout'::text, 'withdrawal'::text])))
);

CREATE SEQUENCE public.fee_rules_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.fee_rules_seq_seq OWNED BY public.fee_rules.seq;

CREATE TABLE public.fee_schedules (
    seq bigint NOT NULL,
    id text NOT NULL,
    tenant_id text NOT NULL,
    name text NOT NULL,
    platform_commission_bps integer NOT NULL,
    status text DEFAULT 'draft'::text NOT NULL,
    is_default boolean DEFAULT false NOT NULL,
    default_on_publish boolean DEFAULT false NOT NULL,
    origin text NOT NULL,
    published_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    created_by text,
    published_by text,
    CONSTRAINT fee_schedules_default_is_published CHECK (((NOT is_default) OR (status = 'published'::text))),
    CONSTRAINT fee_schedules_origin_check CHECK ((origin = ANY (ARRAY['system'::text, 'tenant'::text]))),
    CONSTRAINT fee_schedules_platform_commission_bps_check CHECK (((platform_commission_bps >= 0) AND (platform_commission_bps <= 10000))),
    CONSTRAINT fee_schedules_published_at CHECK (((status = 'published'::text) = (published_at IS NOT NULL))),
    CONSTRAINT fee_schedules_status_check CHECK ((status = ANY (ARRAY['draft'::text, 'published'::text])))
);

CREATE SEQUENCE public.fee_schedules_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.fee_schedules_seq_seq OWNED BY public.fee_schedules.seq;

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

CREATE TABLE public.payout_cases (
    seq bigint NOT NULL,
    id text NOT NULL,
    tenant_id text NOT NULL,
    environment text NOT NULL,
    wallet_id text NOT NULL,
    currency_code text NOT NULL,
    amount numeric NOT NULL,
    fee numeric NOT NULL,
    commission numeric NOT NULL,
    fee_schedule_id text,
    fee_rule_id text,
    platform_commission_bps integer NOT NULL,
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
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    rail_started_at timestamp with time zone,
    rail_reference text,
    rail_failure_reason text,
    outcome_entry_id text,
    outcome_failure_code text,
    rail_lease_until timestamp with time zone,
    approvals_required smallint DEFAULT 1 NOT NULL,
    approver_role text,
    first_approved_by text,
    first_approved_at timestamp with time zone,
    CONSTRAINT payout_cases_amount_check CHECK ((amount > (0)::numeric)),
    CONSTRAINT payout_cases_approvals_required_check CHECK ((approvals_required = ANY (ARRAY[1, 2]))),
    CONSTRAINT payout_cases_check CHECK (((commission >= (0)::numeric) AND (commission <= fee))),
    CONSTRAINT payout_cases_check1 CHECK (((status <> ALL (ARRAY['approved'::text, 'rejected'::text])) OR ((hold_entry_id IS NOT NULL) AND (decided_by IS NOT NULL) AND (decided_at IS NOT NULL)))),
    CONSTRAINT payout_cases_check2 CHECK (((decided_by IS NULL) OR (decided_by <> requested_by))),
    CONSTRAINT payout_cases_check3 CHECK (((failure_code IS NULL) OR (status = 'failed'::text))),
    CONSTRAINT payout_cases_currency_code_check CHECK ((currency_code ~ '^[A-Z]{3}$'::text)),
    CONSTRAINT payout_cases_environment_check CHECK ((environment = ANY (ARRAY['test'::text, 'live'::text]))),
    CONSTRAINT payout_cases_fee_check CHECK ((fee >= (0)::numeric)),
    CONSTRAINT payout_cases_first_approval CHECK (((first_approved_by IS NULL) OR ((approvals_required = 2) AND (first_approved_at IS NOT NULL)))),
    CONSTRAINT payout_cases_payout_method_check CHECK ((payout_method = ANY (ARRAY['momo'::text, 'bank'::text]))),
    CONSTRAINT payout_cases_platform_commission_bps_check CHECK (((platform_commission_bps >= 0) AND (platform_commission_bps <= 10000))),
    CONSTRAINT payout_cases_rail_outcome CHECK (((status <> ALL (ARRAY['completed'::text, 'failed'::text])) OR (hold_entry_id IS NULL) OR (rail_reference IS NOT NULL))),
    CONSTRAINT payout_cases_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'approved'::text, 'rejected'::text, 'completed'::text, 'failed'::text])))
);

CREATE SEQUENCE public.payout_cases_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.payout_cases_seq_seq OWNED BY public.payout_cases.seq;

CREATE TABLE public.reconciliation_full_runs (
    id text NOT NULL,
    tenant_id text,
    environment text,
    state text NOT NULL,
    progress jsonb DEFAULT '{}'::jsonb NOT NULL,
    result jsonb,
    error text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    started_at timestamp with time zone,
    finished_at timestamp with time zone,
    CONSTRAINT reconciliation_full_runs_state_check CHECK ((state = ANY (ARRAY['queued'::text, 'running'::text, 'succeeded'::text, 'failed'::text])))
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

CREATE TABLE public.reconciliation_match_rules (
    tenant_id text NOT NULL,
    environment text NOT NULL,
    reference text NOT NULL,
    date_window_days integer NOT NULL,
    updated_by text NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT reconciliation_match_rules_date_window_days_check CHECK (((date_window_days >= 0) AND (date_window_days <= 31))),
    CONSTRAINT reconciliation_match_rules_environment_check CHECK ((environment = ANY (ARRAY['test'::text, 'live'::text]))),
    CONSTRAINT reconciliation_match_rules_reference_check CHECK ((reference = ANY (ARRAY['exact'::text, 'contains'::text, 'any'::text])))
);

CREATE TABLE public.reconciliation_runs (
    id text NOT NULL,
    round_at timestamp with time zone NOT NULL,
    started_at timestamp with time zone NOT NULL,
    finished_at timestamp with time zone NOT NULL,
    status text NOT NULL,
    mismatch_counts jsonb,
    result jsonb,
    error text,
    CONSTRAINT reconciliation_runs_check CHECK (((status = 'error'::text) = (error IS NOT NULL))),
    CONSTRAINT reconciliation_runs_check1 CHECK (((status = 'error'::text) = (mismatch_counts IS NULL))),
    CONSTRAINT reconciliation_runs_status_check CHECK ((status = ANY (ARRAY['ok'::text, 'mismatch'::text, 'error'::text])))
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

CREATE TABLE public.statement_matches (
    seq bigint NOT NULL,
    id text NOT NULL,
    tenant_id text NOT NULL,
    environment text NOT NULL,
    deposit_id text NOT NULL,
    line_id bigint NOT NULL,
    reason text NOT NULL,
    proposed_by text NOT NULL,
    status text DEFAULT 'pending'::text NOT NULL,
    decided_by text,
    decided_at timestamp with time zone,
    rejection_reason text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT statement_matches_check CHECK (((status = 'pending'::text) = (decided_by IS NULL))),
    CONSTRAINT statement_matches_environment_check CHECK ((environment = ANY (ARRAY['test'::text, 'live'::text]))),
    CONSTRAINT statement_matches_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'approved'::text, 'rejected'::text])))
);

CREATE SEQUENCE public.statement_matches_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.statement_matches_seq_seq OWNED BY public.statement_matches.seq;

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

CREATE TABLE public.transfer_reversals (
    seq bigint NOT NULL,
    id text NOT NULL,
    tenant_id text NOT NULL,
    environment text NOT NULL,
    transfer_id text NOT NULL,
    currency_code text NOT NULL,
    amount numeric NOT NULL,
    fee_refunded numeric NOT NULL,
    commission_refunded numeric NOT NULL,
    reason text NOT NULL,
    status text DEFAULT 'pending'::text NOT NULL,
    journal_entry_id text,
    failure_code text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    finished_at timestamp with time zone,
    CONSTRAINT transfer_reversals_amount_check CHECK ((amount > (0)::numeric)),
    CONSTRAINT transfer_reversals_check CHECK (((commission_refunded >= (0)::numeric) AND (commission_refunded <= fee_refunded))),
    CONSTRAINT transfer_reversals_check1 CHECK ((((status = 'pending'::text) AND (journal_entry_id IS NULL) AND (failure_code IS NULL) AND (finished_at IS NULL)) OR ((status = 'completed'::text) AND (journal_entry_id IS NOT NULL) AND (failure_code IS NULL) AND (finished_at IS NOT NULL)) OR ((status = 'failed'::text) AND (journal_entry_id IS NULL) AND (failure_code IS NOT NULL) AND (finished_at IS NOT NULL)))),
    CONSTRAINT transfer_reversals_currency_code_check CHECK ((currency_code ~ '^[A-Z]{3}$'::text)),
    CONSTRAINT transfer_reversals_environment_check CHECK ((environment = ANY (ARRAY['test'::text, 'live'::text]))),
    CONSTRAINT transfer_reversals_fee_refunded_check CHECK ((fee_refunded >= (0)::numeric)),
    CONSTRAINT transfer_reversals_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'completed'::text, 'failed'::text])))
);

CREATE SEQUENCE public.transfer_reversals_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.transfer_reversals_seq_seq OWNED BY public.transfer_reversals.seq;

CREATE TABLE public.transfers (
    seq bigint NOT NULL,
    id text NOT NULL,
    tenant_id text NOT NULL,
    environment text NOT NULL,
    from_wallet_id text NOT NULL,
    to_wallet_id text NOT NULL,
    currency_code text NOT NULL,
    amount numeric NOT NULL,
    fee numeric NOT NULL,
    commission numeric NOT NULL,
    fee_schedule_id text,
    fee_rule_id text,
    platform_commission_bps integer NOT NULL,
    description text,
    status text DEFAULT 'pending'::text NOT NULL,
    journal_entry_id text,
    failure_code text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    finished_at timestamp with time zone,
    reversed_amount numeric DEFAULT 0 NOT NULL,
    refunded_fee numeric DEFAULT 0 NOT NULL,
    CONSTRAINT transfers_amount_check CHECK ((amount > (0)::numeric)),
    CONSTRAINT transfers_check CHECK (((commission >= (0)::numeric) AND (commission <= fee))),
    CONSTRAINT transfers_check1 CHECK ((from_wallet_id <> to_wallet_id)),
    CONSTRAINT transfers_check2 CHECK ((((status = 'pending'::text) AND (journal_entry_id IS NULL) AND (failure_code IS NULL) AND (finished_at IS NULL)) OR ((status = 'completed'::text) AND (journal_entry_id IS NOT NULL) AND (failure_code IS NULL) AND (finished_at IS NOT NULL)) OR ((status = 'failed'::text) AND (journal_entry_id IS NULL) AND (failure_code IS NOT NULL) AND (finished_at IS NOT NULL)))),
    CONSTRAINT transfers_currency_code_check CHECK ((currency_code ~ '^[A-Z]{3}$'::text)),
    CONSTRAINT transfers_environment_check CHECK ((environment = ANY (ARRAY['test'::text, 'live'::text]))),
    CONSTRAINT transfers_fee_check CHECK ((fee >= (0)::numeric)),
    CONSTRAINT transfers_platform_commission_bps_check CHECK (((platform_commission_bps >= 0) AND (platform_commission_bps <= 10000))),
    CONSTRAINT transfers_reversed_within CHECK (((reversed_amount >= (0)::numeric) AND (reversed_amount <= amount) AND (refunded_fee >= (0)::numeric) AND (refunded_fee <= fee))),
    CONSTRAINT transfers_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'completed'::text, 'failed'::text])))
)
WITH (fillfactor='85');

CREATE SEQUENCE public.transfers_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.transfers_seq_seq OWNED BY public.transfers.seq;

CREATE TABLE public.wallet_status_changes (
    seq bigint NOT NULL,
    command_id text NOT NULL,
    wallet_id text NOT NULL,
    tenant_id text NOT NULL,
    environment text NOT NULL,
    to_status text NOT NULL,
    state text DEFAULT 'pending'::text NOT NULL,
    reason text NOT NULL,
    actor_type text NOT NULL,
    actor_id text NOT NULL,
    actor_metadata jsonb DEFAULT '{}'::jsonb NOT NULL,
    correlation_id text,
    requested_at timestamp with time zone DEFAULT now() NOT NULL,
    settled_at timestamp with time zone,
    CONSTRAINT wallet_status_changes_environment_check CHECK ((environment = ANY (ARRAY['test'::text, 'live'::text]))),
    CONSTRAINT wallet_status_changes_settled CHECK (((state = 'pending'::text) = (settled_at IS NULL))),
    CONSTRAINT wallet_status_changes_state_check CHECK ((state = ANY (ARRAY['pending'::text, 'applied'::text, 'rejected'::text]))),
    CONSTRAINT wallet_status_changes_to_status_check CHECK ((to_status = ANY (ARRAY['active'::text, 'frozen'::text])))
);

CREATE SEQUENCE public.wallet_status_changes_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.wallet_status_changes_seq_seq OWNED BY public.wallet_status_changes.seq;

CREATE TABLE public.wallets (
    seq bigint NOT NULL,
    id text NOT NULL,
    tenant_id text NOT NULL,
    environment text NOT NULL,
    owner_type text NOT NULL,
    owner_id text NOT NULL,
    currency_code text NOT NULL,
    status text DEFAULT 'active'::text NOT NULL,
    ledger_opened_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT wallets_currency_code_check CHECK ((currency_code ~ '^[A-Z]{3}$'::text)),
    CONSTRAINT wallets_environment_check CHECK ((environment = ANY (ARRAY['test'::text, 'live'::text]))),
    CONSTRAINT wallets_owner_type_check CHECK ((owner_type = ANY (ARRAY['user'::text, 'branch'::text, 'company'::text]))),
    CONSTRAINT wallets_status_check CHECK ((status = ANY (ARRAY['active'::text, 'frozen'::text])))
);

CREATE SEQUENCE public.wallets_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.wallets_seq_seq OWNED BY public.wallets.seq;

ALTER TABLE ONLY public.bank_statement_imports ALTER COLUMN seq SET DEFAULT nextval('public.bank_statement_imports_seq_seq'::regclass);

ALTER TABLE ONLY public.bank_statement_lines ALTER COLUMN id SET DEFAULT nextval('public.bank_statement_lines_id_seq'::regclass);

ALTER TABLE ONLY public.deposits ALTER COLUMN seq SET DEFAULT nextval('public.deposits_seq_seq'::regclass);

ALTER TABLE ONLY public.fee_rules ALTER COLUMN seq SET DEFAULT nextval('public.fee_rules_seq_seq'::regclass);

ALTER TABLE ONLY public.fee_schedules ALTER COLUMN seq SET DEFAULT nextval('public.fee_schedules_seq_seq'::regclass);

ALTER TABLE ONLY public.knex_migrations ALTER COLUMN id SET DEFAULT nextval('public.knex_migrations_id_seq'::regclass);

ALTER TABLE ONLY public.knex_migrations_lock ALTER COLUMN index SET DEFAULT nextval('public.knex_migrations_lock_index_seq'::regclass);

ALTER TABLE ONLY public.outbox ALTER COLUMN id SET DEFAULT nextval('public.outbox_id_seq'::regclass);

ALTER TABLE ONLY public.payout_cases ALTER COLUMN seq SET DEFAULT nextval('public.payout_cases_seq_seq'::regclass);

ALTER TABLE ONLY public.statement_matches ALTER COLUMN seq SET DEFAULT nextval('public.statement_matches_seq_seq'::regclass);

ALTER TABLE ONLY public.transfer_reversals ALTER COLUMN seq SET DEFAULT nextval('public.transfer_reversals_seq_seq'::regclass);

ALTER TABLE ONLY public.transfers ALTER COLUMN seq SET DEFAULT nextval('public.transfers_seq_seq'::regclass);

ALTER TABLE ONLY public.wallet_status_changes ALTER COLUMN seq SET DEFAULT nextval('public.wallet_status_changes_seq_seq'::regclass);

ALTER TABLE ONLY public.wallets ALTER COLUMN seq SET DEFAULT nextval('public.wallets_seq_seq'::regclass);

ALTER TABLE ONLY public.approval_policies
    ADD CONSTRAINT approval_policies_pkey PRIMARY KEY (tenant_id, environment, case_type);

ALTER TABLE ONLY public.approval_policy_rules
    ADD CONSTRAINT approval_policy_rules_pkey PRIMARY KEY (tenant_id, environment, case_type, currency_code);

ALTER TABLE ONLY public.awaiting_ledger
    ADD CONSTRAINT awaiting_ledger_pkey PRIMARY KEY (record_type, record_id);

ALTER TABLE ONLY public.bank_statement_imports
    ADD CONSTRAINT bank_statement_imports_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.bank_statement_imports
    ADD CONSTRAINT bank_statement_imports_seq_key UNIQUE (seq);

ALTER TABLE ONLY public.bank_statement_lines
    ADD CONSTRAINT bank_statement_lines_deposit_id_key UNIQUE (deposit_id);

ALTER TABLE ONLY public.bank_statement_lines
    ADD CONSTRAINT bank_statement_lines_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.deposits
    ADD CONSTRAINT deposits_command_id_key UNIQUE (command_id);

ALTER TABLE ONLY public.deposits
    ADD CONSTRAINT deposits_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.deposits
    ADD CONSTRAINT deposits_seq_key UNIQUE (seq);

ALTER TABLE ONLY public.fee_rules
    ADD CONSTRAINT fee_rules_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.fee_rules
    ADD CONSTRAINT fee_rules_seq_key UNIQUE (seq);

ALTER TABLE ONLY public.fee_schedules
    ADD CONSTRAINT fee_schedules_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.fee_schedules
    ADD CONSTRAINT fee_schedules_seq_key UNIQUE (seq);

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

ALTER TABLE ONLY public.payout_cases
    ADD CONSTRAINT payout_cases_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.reconciliation_full_runs
    ADD CONSTRAINT reconciliation_full_runs_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.reconciliation_marks
    ADD CONSTRAINT reconciliation_marks_pkey PRIMARY KEY (tenant_id, environment, reference_type);

ALTER TABLE ONLY public.reconciliation_match_rules
    ADD CONSTRAINT reconciliation_match_rules_pkey PRIMARY KEY (tenant_id, environment);

ALTER TABLE ONLY public.reconciliation_runs
    ADD CONSTRAINT reconciliation_runs_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.sandbox_rail_deliveries
    ADD CONSTRAINT sandbox_rail_deliveries_pkey PRIMARY KEY (case_id);

ALTER TABLE ONLY public.statement_matches
    ADD CONSTRAINT statement_matches_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.statement_matches
    ADD CONSTRAINT statement_matches_seq_key UNIQUE (seq);

ALTER TABLE ONLY public.tenants
    ADD CONSTRAINT tenants_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.transfer_reversals
    ADD CONSTRAINT transfer_reversals_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.transfers
    ADD CONSTRAINT transfers_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.wallet_status_changes
    ADD CONSTRAINT wallet_status_changes_pkey PRIMARY KEY (command_id);

ALTER TABLE ONLY public.wallet_status_changes
    ADD CONSTRAINT wallet_status_changes_seq_key UNIQUE (seq);

ALTER TABLE ONLY public.wallets
    ADD CONSTRAINT wallets_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.wallets
    ADD CONSTRAINT wallets_seq_key UNIQUE (seq);

CREATE INDEX awaiting_ledger_since ON public.awaiting_ledger USING btree (record_type, since);

CREATE INDEX bank_statement_lines_import ON public.bank_statement_lines USING btree (import_id, id);

CREATE UNIQUE INDEX bank_statement_lines_once ON public.bank_statement_lines USING btree (tenant_id, environment, bank_code, currency_code, line_date, reference, amount);

CREATE INDEX bank_statement_lines_scope ON public.bank_statement_lines USING btree (tenant_id, environment, id);

CREATE INDEX bank_statement_lines_unmatched ON public.bank_statement_lines USING btree (tenant_id, environment, bank_code, currency_code, reference_key, amount) WHERE (deposit_id IS NULL);

CREATE INDEX bank_statement_lines_unmatched_amount ON public.bank_statement_lines USING btree (tenant_id, environment, bank_code, currency_code, amount, line_date) WHERE (deposit_id IS NULL);

CREATE INDEX bank_statement_lines_unused ON public.bank_statement_lines USING btree (id) WHERE (deposit_id IS NULL);

CREATE INDEX bank_statement_lines_unused_scope ON public.bank_statement_lines USING btree (tenant_id, environment, id) WHERE (deposit_id IS NULL);

CREATE INDEX deposits_external_ref_seq ON public.deposits USING btree (tenant_id, environment, external_ref, seq DESC);

CREATE UNIQUE INDEX deposits_momo_transaction_per_environment ON public.deposits USING btree (tenant_id, environment, provider_code, external_ref) WHERE ((source = 'momo'::text) AND (status <> 'rejected'::text));

CREATE INDEX deposits_pending_slips ON public.deposits USING btree (tenant_id, environment, created_at) WHERE ((source = 'bank_slip'::text) AND (status = 'pending'::text));

CREATE INDEX deposits_pending_slips_seq ON public.deposits USING btree (tenant_id, environment, seq) WHERE ((source = 'bank_slip'::text) AND (status = 'pending'::text));

CREATE INDEX deposits_phone_number_seq ON public.deposits USING btree (tenant_id, environment, phone_number, seq DESC) WHERE (phone_number IS NOT NULL);

CREATE INDEX deposits_scope_amount_seq ON public.deposits USING btree (tenant_id, environment, amount, seq);

CREATE INDEX deposits_tenant_seq ON public.deposits USING btree (tenant_id, environment, seq DESC);

CREATE INDEX deposits_wallet_seq ON public.deposits USING btree (wallet_id, seq DESC);

CREATE INDEX fee_rules_schedule_match ON public.fee_rules USING btree (schedule_id, transaction_type, currency_code, seq);

CREATE UNIQUE INDEX fee_schedules_one_default ON public.fee_schedules USING btree (tenant_id) WHERE is_default;

CREATE INDEX fee_schedules_tenant_seq ON public.fee_schedules USING btree (tenant_id, seq DESC);

CREATE INDEX idempotency_keys_expires_at_idx ON public.idempotency_keys USING btree (expires_at);

CREATE INDEX idempotency_keys_in_flight ON public.idempotency_keys USING btree (created_at) WHERE (status = 'in_progress'::text);

CREATE INDEX inbox_processed_at_brin ON public.inbox USING brin (processed_at);

CREATE INDEX outbox_unanswered_sent_at ON public.outbox_unanswered USING btree (sent_at);

CREATE INDEX payout_cases_approved ON public.payout_cases USING btree (seq) WHERE (status = 'approved'::text);

CREATE INDEX payout_cases_pending ON public.payout_cases USING btree (tenant_id, environment, seq) WHERE (status = 'pending'::text);

CREATE INDEX payout_cases_scope_amount_seq ON public.payout_cases USING btree (tenant_id, environment, amount, seq);

CREATE INDEX payout_cases_tenant_seq ON public.payout_cases USING btree (tenant_id, environment, seq DESC);

CREATE INDEX payout_cases_wallet_seq ON public.payout_cases USING btree (wallet_id, seq DESC);

CREATE INDEX reconciliation_runs_round ON public.reconciliation_runs USING btree (round_at);

CREATE INDEX statement_matches_pending ON public.statement_matches USING btree (tenant_id, environment, seq DESC) WHERE (status = 'pending'::text);

CREATE UNIQUE INDEX statement_matches_pending_deposit ON public.statement_matches USING btree (deposit_id) WHERE (status = 'pending'::text);

CREATE UNIQUE INDEX statement_matches_pending_line ON public.statement_matches USING btree (line_id) WHERE (status = 'pending'::text);

CREATE INDEX statement_matches_scope_seq ON public.statement_matches USING btree (tenant_id, environment, seq DESC);

CREATE INDEX transfer_reversals_scope_seq ON public.transfer_reversals USING btree (tenant_id, environment, seq);

CREATE INDEX transfer_reversals_transfer_seq ON public.transfer_reversals USING btree (transfer_id, seq);

CREATE INDEX transfers_from_wallet_hash_seq ON public.transfers USING btree (hashtextextended(from_wallet_id, (0)::bigint), seq);

CREATE INDEX transfers_scope_amount_seq ON public.transfers USING btree (tenant_id, environment, amount, seq);

CREATE INDEX transfers_scope_seq ON public.transfers USING btree (tenant_id, environment, seq);

CREATE INDEX transfers_to_wallet_hash_seq ON public.transfers USING btree (hashtextextended(to_wallet_id, (0)::bigint), seq);

CREATE UNIQUE INDEX wallet_status_changes_one_pending ON public.wallet_status_changes USING btree (wallet_id) WHERE (state = 'pending'::text);

CREATE UNIQUE INDEX wallets_owner_currency ON public.wallets USING btree (tenant_id, environment, owner_type, owner_id, currency_code);

CREATE INDEX wallets_tenant_seq ON public.wallets USING btree (tenant_id, environment, seq DESC);

ALTER TABLE ONLY public.approval_policy_rules
    ADD CONSTRAINT approval_policy_rules_tenant_id_environment_case_type_fkey FOREIGN KEY (tenant_id, environment, case_type) REFERENCES public.approval_policies(tenant_id, environment, case_type) ON DELETE CASCADE;

ALTER TABLE ONLY public.bank_statement_lines
    ADD CONSTRAINT bank_statement_lines_deposit_id_fkey FOREIGN KEY (deposit_id) REFERENCES public.deposits(id);

ALTER TABLE ONLY public.bank_statement_lines
    ADD CONSTRAINT bank_statement_lines_import_id_fkey FOREIGN KEY (import_id) REFERENCES public.bank_statement_imports(id);

ALTER TABLE ONLY public.deposits
    ADD CONSTRAINT deposits_wallet_id_fkey FOREIGN KEY (wallet_id) REFERENCES public.wallets(id);

ALTER TABLE ONLY public.fee_rules
    ADD CONSTRAINT fee_rules_schedule_id_fkey FOREIGN KEY (schedule_id) REFERENCES public.fee_schedules(id);

ALTER TABLE ONLY public.payout_cases
    ADD CONSTRAINT payout_cases_wallet_id_fkey FOREIGN KEY (wallet_id) REFERENCES public.wallets(id);

ALTER TABLE ONLY public.statement_matches
    ADD CONSTRAINT statement_matches_deposit_id_fkey FOREIGN KEY (deposit_id) REFERENCES public.deposits(id);

ALTER TABLE ONLY public.statement_matches
    ADD CONSTRAINT statement_matches_line_id_fkey FOREIGN KEY (line_id) REFERENCES public.bank_statement_lines(id);

ALTER TABLE ONLY public.transfer_reversals
    ADD CONSTRAINT transfer_reversals_transfer_id_fkey FOREIGN KEY (transfer_id) REFERENCES public.transfers(id);

ALTER TABLE ONLY public.transfers
    ADD CONSTRAINT transfers_from_wallet_id_fkey FOREIGN KEY (from_wallet_id) REFERENCES public.wallets(id);

ALTER TABLE ONLY public.transfers
    ADD CONSTRAINT transfers_to_wallet_id_fkey FOREIGN KEY (to_wallet_id) REFERENCES public.wallets(id);

ALTER TABLE ONLY public.wallet_status_changes
    ADD CONSTRAINT wallet_status_changes_wallet_id_fkey FOREIGN KEY (wallet_id) REFERENCES public.wallets(id);
