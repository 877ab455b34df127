CREATE FUNCTION public.command_key(command_id text) RETURNS uuid
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT CASE WHEN sortable_id_ms(command_id) >= <migrated at>
                        THEN (lpad(to_hex(sortable_id_ms(command_id) & 281474976710655), 12, '0') || substr(md5(command_id), 1, 20))::uuid
                        ELSE md5(command_id)::uuid END $$;

COMMENT ON FUNCTION public.command_key(command_id text) IS 'journal_entries.command_key of a command id: its time then MD5 bits; plain MD5 for commands made before <migrated at>. Never redefine it: entries are keyed by it for ever.';

CREATE FUNCTION public.outbox_delete(message_ids text[]) RETURNS void
    LANGUAGE sql
    SET enable_seqscan TO 'off'
    SET enable_bitmapscan TO 'off'
    AS $$ DELETE FROM outbox WHERE message_id = ANY(message_ids) $$;

CREATE FUNCTION public.reference_key(reference_id text) RETURNS bigint
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT coalesce((sortable_id_ms(reference_id) & 281474976710655) << 15 | (hashtext(reference_id) & 32767), hashtext(reference_id)) $$;

CREATE FUNCTION public.sortable_id_ms(id text) RETURNS bigint
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $_$ SELECT CASE WHEN substr(id, strpos(id, '_') + 1, 10) ~ '^[0123456789ABCDEFGHJKMNPQRSTVWXYZ]{10}$' THEN (strpos('0123456789ABCDEFGHJKMNPQRSTVWXYZ', substr(substr(id, strpos(id, '_') + 1, 10), 1, 1)) - 1)::bigint * 35184372088832 + (strpos('0123456789ABCDEFGHJKMNPQRSTVWXYZ', substr(substr(id, strpos(id, '_') + 1, 10), 2, 1)) - 1)::bigint * 1099511627776 + (strpos('0123456789ABCDEFGHJKMNPQRSTVWXYZ', substr(substr(id, strpos(id, '_') + 1, 10), 3, 1)) - 1)::bigint * 34359738368 + (strpos('0123456789ABCDEFGHJKMNPQRSTVWXYZ', substr(substr(id, strpos(id, '_') + 1, 10), 4, 1)) - 1)::bigint * 1073741824 + (strpos('0123456789ABCDEFGHJKMNPQRSTVWXYZ', substr(substr(id, strpos(id, '_') + 1, 10), 5, 1)) - 1)::bigint * 33554432 + (strpos('0123456789ABCDEFGHJKMNPQRSTVWXYZ', substr(substr(id, strpos(id, '_') + 1, 10), 6, 1)) - 1)::bigint * 1048576 + (strpos('0123456789ABCDEFGHJKMNPQRSTVWXYZ', substr(substr(id, strpos(id, '_') + 1, 10), 7, 1)) - 1)::bigint * 32768 + (strpos('0123456789ABCDEFGHJKMNPQRSTVWXYZ', substr(substr(id, strpos(id, '_') + 1, 10), 8, 1)) - 1)::bigint * 1024 + (strpos('0123456789ABCDEFGHJKMNPQRSTVWXYZ', substr(substr(id, strpos(id, '_') + 1, 10), 9, 1)) - 1)::bigint * 32 + (strpos('0123456789ABCDEFGHJKMNPQRSTVWXYZ', substr(substr(id, strpos(id, '_') + 1, 10), 10, 1)) - 1)::bigint * 1 END $_$;

COMMENT ON FUNCTION public.sortable_id_ms(id text) IS 'The milliseconds an id was made at (its 10 Crockford base32 characters after the prefix), or NULL.';

CREATE TABLE public.accounts (
    id text NOT NULL,
    tenant_id text NOT NULL,
    environment text NOT NULL,
    currency_code character(3) NOT NULL,
    name text NOT NULL,
    wallet_id text,
    normal_side character(2) NOT NULL,
    non_negative boolean DEFAULT false NOT NULL,
    status text DEFAULT 'active'::text NOT NULL,
    balance numeric DEFAULT 0 NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    last_posted_at timestamp with time zone,
    num bigint NOT NULL,
    CONSTRAINT accounts_environment_check CHECK ((environment = ANY (ARRAY['test'::text, 'live'::text]))),
    CONSTRAINT accounts_non_negative CHECK (((NOT non_negative) OR (balance >= (0)::numeric))),
    CONSTRAINT accounts_normal_side_check CHECK ((normal_side = ANY (ARRAY['DR'::bpchar, 'CR'::bpchar]))),
    CONSTRAINT accounts_status_check CHECK ((status = ANY (ARRAY['active'::text, 'frozen'::text]))),
    CONSTRAINT accounts_wallet_has_id CHECK (((name ~~ 'wallet:%'::text) = (wallet_id IS NOT NULL)))
)
WITH (fillfactor='70');

ALTER TABLE public.accounts ALTER COLUMN num ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.accounts_num_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE public.inbox (
    message_id text NOT NULL,
    type text NOT NULL,
    processed_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);

CREATE TABLE public.journal_entries (
    seq bigint NOT NULL,
    id text NOT NULL,
    tenant_id text NOT NULL,
    environment text NOT NULL,
    kind text NOT NULL,
    reference_type text NOT NULL,
    reference_id text NOT NULL,
    reverses_entry_id text,
    created_at timestamp with time zone NOT NULL,
    command_key uuid NOT NULL
);

CREATE SEQUENCE public.journal_entries_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.journal_entries_seq_seq OWNED BY public.journal_entries.seq;

CREATE TABLE public.journal_lines (
    entry_seq bigint NOT NULL,
    account_num bigint NOT NULL,
    line_no smallint NOT NULL,
    direction character(2) NOT NULL,
    amount numeric NOT NULL,
    balance_after numeric NOT NULL,
    CONSTRAINT journal_lines_compact_amount_check CHECK ((amount > (0)::numeric)),
    CONSTRAINT journal_lines_compact_direction_check CHECK ((direction = ANY (ARRAY['DR'::bpchar, 'CR'::bpchar])))
);

CREATE TABLE public.journal_stamp_ranges (
    last_seq bigint NOT NULL,
    first_seq bigint NOT NULL,
    min_created_at timestamp with time zone NOT NULL,
    max_created_at timestamp with time zone NOT NULL,
    max_created_at_through timestamp with time zone NOT NULL,
    min_created_at_from timestamp with time zone NOT NULL
);

CREATE TABLE public.journal_stamp_seal (
    one boolean DEFAULT true NOT NULL,
    sealed_through bigint DEFAULT 0 NOT NULL,
    candidate_through bigint,
    candidate_at timestamp with time zone,
    CONSTRAINT journal_stamp_seal_one_check CHECK (one)
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

CREATE TABLE public.ledger_partition_epochs (
    partition integer NOT NULL,
    epoch bigint NOT NULL,
    writer text NOT NULL,
    claimed_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT ledger_partition_epochs_partition_check CHECK ((partition >= 0))
);

CREATE TABLE public.ledger_partition_shards (
    partition integer NOT NULL,
    shard integer NOT NULL,
    mapped_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT ledger_partition_shards_partition_check CHECK ((partition >= 0)),
    CONSTRAINT ledger_partition_shards_shard_check CHECK ((shard >= 0))
);

CREATE TABLE public.ledger_tenant_partitions (
    tenant_id text NOT NULL,
    partition integer NOT NULL,
    placed_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT ledger_tenant_partitions_partition_check CHECK ((partition >= 0))
);

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

CREATE TABLE public.processed_commands (
    command_id text NOT NULL,
    tenant_id text NOT NULL,
    payload_hash text NOT NULL,
    result json NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE public.reconciliation_account_checkpoints (
    account_id text NOT NULL,
    verified_seq bigint NOT NULL,
    verified_sum numeric NOT NULL
);

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
    record_digests jsonb,
    owner text,
    CONSTRAINT reconciliation_full_runs_state_check CHECK ((state = ANY (ARRAY['queued'::text, 'running'::text, 'succeeded'::text, 'failed'::text])))
);

CREATE TABLE public.reconciliation_scope_checkpoints (
    tenant_id text NOT NULL,
    environment text NOT NULL,
    verified_seq bigint DEFAULT 0 NOT NULL,
    totals jsonb DEFAULT '{}'::jsonb NOT NULL,
    seen_seq bigint DEFAULT 0 NOT NULL,
    seen_xmax bigint DEFAULT 0 NOT NULL
);

ALTER TABLE ONLY public.journal_entries ALTER COLUMN seq SET DEFAULT nextval('public.journal_entries_seq_seq'::regclass);

ALTER TABLE ONLY public.knex_migrations ALTER COLUMN id SET DEFAULT nextval('public.knex_migrations_id_seq'::regclass);

ALTER TABLE ONLY public.knex_migrations_lock ALTER COLUMN index SET DEFAULT nextval('public.knex_migrations_lock_index_seq'::regclass);

ALTER TABLE ONLY public.outbox ALTER COLUMN id SET DEFAULT nextval('public.outbox_id_seq'::regclass);

ALTER TABLE ONLY public.accounts
    ADD CONSTRAINT accounts_num_key UNIQUE (num);

ALTER TABLE ONLY public.accounts
    ADD CONSTRAINT accounts_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.inbox
    ADD CONSTRAINT inbox_pkey PRIMARY KEY (message_id);

ALTER TABLE ONLY public.journal_entries
    ADD CONSTRAINT journal_entries_command_key UNIQUE (command_key);

ALTER TABLE ONLY public.journal_entries
    ADD CONSTRAINT journal_entries_id_key UNIQUE (id);

ALTER TABLE ONLY public.journal_entries
    ADD CONSTRAINT journal_entries_pkey PRIMARY KEY (seq);

ALTER TABLE ONLY public.journal_lines
    ADD CONSTRAINT journal_lines_pkey PRIMARY KEY (entry_seq, line_no);

ALTER TABLE ONLY public.journal_stamp_ranges
    ADD CONSTRAINT journal_stamp_ranges_pkey PRIMARY KEY (last_seq);

ALTER TABLE ONLY public.journal_stamp_seal
    ADD CONSTRAINT journal_stamp_seal_pkey PRIMARY KEY (one);

ALTER TABLE ONLY public.knex_migrations_lock
    ADD CONSTRAINT knex_migrations_lock_pkey PRIMARY KEY (index);

ALTER TABLE ONLY public.knex_migrations
    ADD CONSTRAINT knex_migrations_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.ledger_partition_epochs
    ADD CONSTRAINT ledger_partition_epochs_pkey PRIMARY KEY (partition);

ALTER TABLE ONLY public.ledger_partition_shards
    ADD CONSTRAINT ledger_partition_shards_pkey PRIMARY KEY (partition);

ALTER TABLE ONLY public.ledger_tenant_partitions
    ADD CONSTRAINT ledger_tenant_partitions_pkey PRIMARY KEY (tenant_id);

ALTER TABLE ONLY public.outbox
    ADD CONSTRAINT outbox_message_id_unique UNIQUE (message_id);

ALTER TABLE ONLY public.outbox
    ADD CONSTRAINT outbox_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.processed_commands
    ADD CONSTRAINT processed_commands_pkey PRIMARY KEY (command_id);

ALTER TABLE ONLY public.reconciliation_account_checkpoints
    ADD CONSTRAINT reconciliation_account_checkpoints_pkey PRIMARY KEY (account_id);

ALTER TABLE ONLY public.reconciliation_full_runs
    ADD CONSTRAINT reconciliation_full_runs_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.reconciliation_scope_checkpoints
    ADD CONSTRAINT reconciliation_scope_checkpoints_pkey PRIMARY KEY (tenant_id, environment);

CREATE UNIQUE INDEX accounts_system_key ON public.accounts USING btree (tenant_id, environment, currency_code, name) WHERE (wallet_id IS NULL);

CREATE UNIQUE INDEX accounts_wallet_key ON public.accounts USING btree (tenant_id, environment, wallet_id) WHERE (wallet_id IS NOT NULL);

CREATE INDEX inbox_processed_at_brin ON public.inbox USING brin (processed_at);

CREATE INDEX journal_entries_reference_key ON public.journal_entries USING btree (public.reference_key(reference_id));

CREATE INDEX journal_entries_scope_seq ON public.journal_entries USING btree (hashtext(((tenant_id || '/'::text) || environment)), seq);

CREATE INDEX journal_lines_account ON public.journal_lines USING btree (account_num, entry_seq DESC, line_no DESC);

CREATE INDEX journal_stamp_ranges_from ON public.journal_stamp_ranges USING btree (min_created_at_from, last_seq);

CREATE INDEX journal_stamp_ranges_through ON public.journal_stamp_ranges USING btree (max_created_at_through, last_seq);

CREATE INDEX processed_commands_created_at_brin ON public.processed_commands USING brin (created_at);

ALTER TABLE ONLY public.journal_entries
    ADD CONSTRAINT journal_entries_reverses_entry_id_fkey FOREIGN KEY (reverses_entry_id) REFERENCES public.journal_entries(id);
