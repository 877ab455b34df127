CREATE FUNCTION public.audit_events_append_only() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
    BEGIN
      RAISE EXCEPTION 'audit_events is append-only: % refused', TG_OP;
    END;
    $$;

CREATE FUNCTION public.outbox_delete(message_ids text[]) RETURNS void
    LANGUAGE sql
    SET enable_seqscan TO 'off'
    SET enable_bitmapscan TO 'off'
    AS $$ DELETE FROM outbox WHERE message_id = ANY(message_ids) $$;

CREATE TABLE public.api_key_credentials (
    id bigint NOT NULL,
    key_id text NOT NULL,
    secret_hash text,
    signing_secret_ciphertext bytea,
    master_key_id text,
    valid_until timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT api_key_credentials_key_named CHECK (((signing_secret_ciphertext IS NULL) = (master_key_id IS NULL))),
    CONSTRAINT api_key_credentials_one_kind CHECK (((secret_hash IS NULL) <> (signing_secret_ciphertext IS NULL)))
);

CREATE SEQUENCE public.api_key_credentials_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.api_key_credentials_id_seq OWNED BY public.api_key_credentials.id;

CREATE TABLE public.api_keys (
    seq bigint NOT NULL,
    id text NOT NULL,
    tenant_id text NOT NULL,
    name text NOT NULL,
    auth_mode text NOT NULL,
    environment text NOT NULL,
    scopes text[] NOT NULL,
    restrictions jsonb NOT NULL,
    key_prefix text,
    last4 text,
    expires_at timestamp with time zone,
    revoked_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT api_keys_auth_mode_check CHECK ((auth_mode = ANY (ARRAY['secret'::text, 'hmac'::text]))),
    CONSTRAINT api_keys_environment_check CHECK ((environment = ANY (ARRAY['test'::text, 'live'::text]))),
    CONSTRAINT api_keys_secret_shown_as_prefix CHECK (((auth_mode = 'secret'::text) = ((key_prefix IS NOT NULL) AND (last4 IS NOT NULL))))
);

CREATE SEQUENCE public.api_keys_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.api_keys_seq_seq OWNED BY public.api_keys.seq;

CREATE TABLE public.audit_events (
    seq bigint NOT NULL,
    id text NOT NULL,
    tenant_id text,
    environment text,
    action text NOT NULL,
    actor_type text NOT NULL,
    actor_id text NOT NULL,
    target_type text NOT NULL,
    target_id text NOT NULL,
    metadata jsonb DEFAULT '{}'::jsonb NOT NULL,
    correlation_id text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT audit_events_environment_check CHECK ((environment = ANY (ARRAY['test'::text, 'live'::text])))
);

CREATE SEQUENCE public.audit_events_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.audit_events_seq_seq OWNED BY public.audit_events.seq;

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

CREATE TABLE public.login_throttles (
    email_hash text NOT NULL,
    failures integer NOT NULL,
    last_failure_at timestamp with time zone NOT NULL,
    locked_until timestamp with time zone,
    last_attempt_refused boolean DEFAULT false NOT NULL,
    CONSTRAINT login_throttles_email_hash_check CHECK ((email_hash ~ '^[0-9a-f]{64}$'::text)),
    CONSTRAINT login_throttles_failures_check CHECK ((failures > 0))
);

CREATE TABLE public.momo_provider_secrets (
    id bigint NOT NULL,
    provider_id text NOT NULL,
    ciphertext bytea NOT NULL,
    master_key_id text NOT NULL,
    valid_until timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE SEQUENCE public.momo_provider_secrets_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.momo_provider_secrets_id_seq OWNED BY public.momo_provider_secrets.id;

CREATE TABLE public.momo_providers (
    seq bigint NOT NULL,
    id text NOT NULL,
    tenant_id text NOT NULL,
    provider_code text NOT NULL,
    name text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE SEQUENCE public.momo_providers_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.momo_providers_seq_seq OWNED BY public.momo_providers.seq;

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

CREATE TABLE public.platform_events (
    seq bigint NOT NULL,
    id text NOT NULL,
    tenant_id text NOT NULL,
    environment text NOT NULL,
    type text NOT NULL,
    object_id text NOT NULL,
    payload text NOT NULL,
    created_at timestamp with time zone NOT NULL,
    recorded_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT platform_events_environment_check CHECK ((environment = ANY (ARRAY['test'::text, 'live'::text])))
);

CREATE SEQUENCE public.platform_events_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.platform_events_seq_seq OWNED BY public.platform_events.seq;

CREATE TABLE public.review_notices (
    id bigint NOT NULL,
    tenant_id text NOT NULL,
    environment text NOT NULL,
    case_type text NOT NULL,
    case_id text NOT NULL,
    event text NOT NULL,
    requested_by text NOT NULL,
    approved_by text,
    approver_role text,
    amount numeric,
    currency_code text,
    attempts integer DEFAULT 0 NOT NULL,
    next_attempt_at timestamp with time zone DEFAULT now() NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT review_notices_environment_check CHECK ((environment = ANY (ARRAY['test'::text, 'live'::text]))),
    CONSTRAINT review_notices_event_check CHECK ((event = ANY (ARRAY['requested'::text, 'approval_recorded'::text])))
);

CREATE SEQUENCE public.review_notices_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.review_notices_id_seq OWNED BY public.review_notices.id;

CREATE TABLE public.sessions (
    id text NOT NULL,
    token_hash text NOT NULL,
    tenant_id text NOT NULL,
    member_id text NOT NULL,
    environment text NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    revoked_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT sessions_environment_check CHECK ((environment = ANY (ARRAY['test'::text, 'live'::text])))
);

CREATE TABLE public.team_members (
    id text NOT NULL,
    tenant_id text NOT NULL,
    name text NOT NULL,
    email text NOT NULL,
    org_role text NOT NULL,
    status text NOT NULL,
    password_hash text,
    invite_token_hash text,
    invite_expires_at timestamp with time zone,
    invite_sent_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    seq bigint NOT NULL,
    CONSTRAINT team_members_invite_complete CHECK (((invite_token_hash IS NULL) = (invite_expires_at IS NULL))),
    CONSTRAINT team_members_org_role_check CHECK ((org_role = ANY (ARRAY['org-admin'::text, 'operator'::text, 'approver'::text, 'developer'::text, 'finance-viewer'::text, 'observer'::text, 'user'::text]))),
    CONSTRAINT team_members_status_check CHECK ((status = ANY (ARRAY['invited'::text, 'active'::text, 'deactivated'::text])))
);

CREATE SEQUENCE public.team_members_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.team_members_seq_seq OWNED BY public.team_members.seq;

CREATE TABLE public.tenants (
    seq bigint NOT NULL,
    id text NOT NULL,
    name text NOT NULL,
    slug text NOT NULL,
    config jsonb NOT NULL,
    max_transaction_amount numeric NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT tenants_max_transaction_amount_check CHECK ((max_transaction_amount > (0)::numeric))
);

CREATE SEQUENCE public.tenants_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.tenants_seq_seq OWNED BY public.tenants.seq;

CREATE TABLE public.webhook_deliveries (
    seq bigint NOT NULL,
    id text NOT NULL,
    endpoint_id text NOT NULL,
    event_id text NOT NULL,
    event_type text NOT NULL,
    object_id text NOT NULL,
    status text DEFAULT 'pending'::text NOT NULL,
    attempt_count integer DEFAULT 0 NOT NULL,
    attempts jsonb DEFAULT '[]'::jsonb NOT NULL,
    next_attempt_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT webhook_deliveries_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'succeeded'::text, 'failed'::text])))
);

CREATE SEQUENCE public.webhook_deliveries_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.webhook_deliveries_seq_seq OWNED BY public.webhook_deliveries.seq;

CREATE TABLE public.webhook_endpoint_secrets (
    id bigint NOT NULL,
    endpoint_id text NOT NULL,
    ciphertext bytea NOT NULL,
    master_key_id text NOT NULL,
    valid_until timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE SEQUENCE public.webhook_endpoint_secrets_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.webhook_endpoint_secrets_id_seq OWNED BY public.webhook_endpoint_secrets.id;

CREATE TABLE public.webhook_endpoints (
    seq bigint NOT NULL,
    id text NOT NULL,
    tenant_id text NOT NULL,
    environment text NOT NULL,
    url text NOT NULL,
    description text,
    event_types text[] NOT NULL,
    enabled boolean DEFAULT true NOT NULL,
    disabled_reason text,
    failing_since timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT webhook_endpoints_disabled_reason_check CHECK ((disabled_reason = ANY (ARRAY['failing'::text, 'gone'::text]))),
    CONSTRAINT webhook_endpoints_environment_check CHECK ((environment = ANY (ARRAY['test'::text, 'live'::text]))),
    CONSTRAINT webhook_endpoints_event_types_check CHECK ((cardinality(event_types) > 0))
);

CREATE SEQUENCE public.webhook_endpoints_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.webhook_endpoints_seq_seq OWNED BY public.webhook_endpoints.seq;

ALTER TABLE ONLY public.api_key_credentials ALTER COLUMN id SET DEFAULT nextval('public.api_key_credentials_id_seq'::regclass);

ALTER TABLE ONLY public.api_keys ALTER COLUMN seq SET DEFAULT nextval('public.api_keys_seq_seq'::regclass);

ALTER TABLE ONLY public.audit_events ALTER COLUMN seq SET DEFAULT nextval('public.audit_events_seq_seq'::regclass);

ALTER TABLE ONLY public.knex_migrations ALTER COLUMN id SET DEFAULT nextval('public.knex_migrations_id_seq'::regclass);

ALTER TABLE ONLY public.knex_migrations_lock ALTER COLUMN index SET DEFAULT nextval('public.knex_migrations_lock_index_seq'::regclass);

ALTER TABLE ONLY public.momo_provider_secrets ALTER COLUMN id SET DEFAULT nextval('public.momo_provider_secrets_id_seq'::regclass);

ALTER TABLE ONLY public.momo_providers ALTER COLUMN seq SET DEFAULT nextval('public.momo_providers_seq_seq'::regclass);

ALTER TABLE ONLY public.outbox ALTER COLUMN id SET DEFAULT nextval('public.outbox_id_seq'::regclass);

ALTER TABLE ONLY public.platform_events ALTER COLUMN seq SET DEFAULT nextval('public.platform_events_seq_seq'::regclass);

ALTER TABLE ONLY public.review_notices ALTER COLUMN id SET DEFAULT nextval('public.review_notices_id_seq'::regclass);

ALTER TABLE ONLY public.team_members ALTER COLUMN seq SET DEFAULT nextval('public.team_members_seq_seq'::regclass);

ALTER TABLE ONLY public.tenants ALTER COLUMN seq SET DEFAULT nextval('public.tenants_seq_seq'::regclass);

ALTER TABLE ONLY public.webhook_deliveries ALTER COLUMN seq SET DEFAULT nextval('public.webhook_deliveries_seq_seq'::regclass);

ALTER TABLE ONLY public.webhook_endpoint_secrets ALTER COLUMN id SET DEFAULT nextval('public.webhook_endpoint_secrets_id_seq'::regclass);

ALTER TABLE ONLY public.webhook_endpoints ALTER COLUMN seq SET DEFAULT nextval('public.webhook_endpoints_seq_seq'::regclass);

ALTER TABLE ONLY public.api_key_credentials
    ADD CONSTRAINT api_key_credentials_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.api_key_credentials
    ADD CONSTRAINT api_key_credentials_secret_hash_key UNIQUE (secret_hash);

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_seq_key UNIQUE (seq);

ALTER TABLE ONLY public.audit_events
    ADD CONSTRAINT audit_events_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.audit_events
    ADD CONSTRAINT audit_events_seq_key UNIQUE (seq);

ALTER TABLE ONLY public.idempotency_keys
    ADD CONSTRAINT idempotency_keys_pkey PRIMARY KEY (tenant_id, environment, idempotency_key);

ALTER TABLE ONLY public.inbox
    ADD CONSTRAINT inbox_pkey PRIMARY KEY (message_id);

ALTER TABLE ONLY public.knex_migrations_lock
    ADD CONSTRAINT knex_migrations_lock_pkey PRIMARY KEY (index);

ALTER TABLE ONLY public.knex_migrations
    ADD CONSTRAINT knex_migrations_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.login_throttles
    ADD CONSTRAINT login_throttles_pkey PRIMARY KEY (email_hash);

ALTER TABLE ONLY public.momo_provider_secrets
    ADD CONSTRAINT momo_provider_secrets_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.momo_providers
    ADD CONSTRAINT momo_providers_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.momo_providers
    ADD CONSTRAINT momo_providers_seq_key UNIQUE (seq);

ALTER TABLE ONLY public.momo_providers
    ADD CONSTRAINT momo_providers_tenant_code UNIQUE (tenant_id, provider_code);

ALTER TABLE ONLY public.outbox
    ADD CONSTRAINT outbox_message_id_unique UNIQUE (message_id);

ALTER TABLE ONLY public.outbox
    ADD CONSTRAINT outbox_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.platform_events
    ADD CONSTRAINT platform_events_id_key UNIQUE (id);

ALTER TABLE ONLY public.platform_events
    ADD CONSTRAINT platform_events_pkey PRIMARY KEY (seq);

ALTER TABLE ONLY public.review_notices
    ADD CONSTRAINT review_notices_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.sessions
    ADD CONSTRAINT sessions_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.sessions
    ADD CONSTRAINT sessions_token_hash_key UNIQUE (token_hash);

ALTER TABLE ONLY public.team_members
    ADD CONSTRAINT team_members_invite_token_hash_key UNIQUE (invite_token_hash);

ALTER TABLE ONLY public.team_members
    ADD CONSTRAINT team_members_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.team_members
    ADD CONSTRAINT team_members_seq_key UNIQUE (seq);

ALTER TABLE ONLY public.tenants
    ADD CONSTRAINT tenants_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.tenants
    ADD CONSTRAINT tenants_seq_key UNIQUE (seq);

ALTER TABLE ONLY public.tenants
    ADD CONSTRAINT tenants_slug_key UNIQUE (slug);

ALTER TABLE ONLY public.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_endpoint_id_event_id_key UNIQUE (endpoint_id, event_id);

ALTER TABLE ONLY public.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (seq);

ALTER TABLE ONLY public.webhook_endpoint_secrets
    ADD CONSTRAINT webhook_endpoint_secrets_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.webhook_endpoints
    ADD CONSTRAINT webhook_endpoints_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.webhook_endpoints
    ADD CONSTRAINT webhook_endpoints_seq_key UNIQUE (seq);

CREATE INDEX api_key_credentials_key ON public.api_key_credentials USING btree (key_id, id);

CREATE UNIQUE INDEX api_key_credentials_one_current ON public.api_key_credentials USING btree (key_id) WHERE (valid_until IS NULL);

CREATE INDEX api_keys_tenant_seq ON public.api_keys USING btree (tenant_id, seq DESC);

CREATE INDEX audit_events_tenant_seq ON public.audit_events USING btree (tenant_id, seq DESC);

CREATE INDEX audit_events_tenant_target ON public.audit_events USING btree (tenant_id, target_type, target_id, seq DESC);

CREATE INDEX idempotency_keys_expires_at_idx ON public.idempotency_keys USING btree (expires_at);

CREATE INDEX idempotency_keys_in_flight ON public.idempotency_keys USING btree (created_at) WHERE (status = 'in_progress'::text);

CREATE INDEX inbox_processed_at_brin ON public.inbox USING brin (processed_at);

CREATE INDEX login_throttles_last_failure_at ON public.login_throttles USING btree (last_failure_at);

CREATE UNIQUE INDEX momo_provider_secrets_one_current ON public.momo_provider_secrets USING btree (provider_id) WHERE (valid_until IS NULL);

CREATE INDEX momo_provider_secrets_provider ON public.momo_provider_secrets USING btree (provider_id, id);

CREATE INDEX momo_providers_tenant_seq ON public.momo_providers USING btree (tenant_id, seq DESC);

CREATE INDEX platform_events_object ON public.platform_events USING btree (tenant_id, object_id, seq);

CREATE INDEX platform_events_recorded_at ON public.platform_events USING brin (recorded_at);

CREATE INDEX platform_events_scope ON public.platform_events USING btree (tenant_id, environment, seq);

CREATE INDEX review_notices_due ON public.review_notices USING btree (next_attempt_at);

CREATE INDEX sessions_expires_at ON public.sessions USING btree (expires_at);

CREATE INDEX sessions_member_open ON public.sessions USING btree (member_id) WHERE (revoked_at IS NULL);

CREATE INDEX team_members_email ON public.team_members USING btree (lower(email));

CREATE INDEX team_members_tenant_admins ON public.team_members USING btree (tenant_id, id) WHERE (org_role = 'org-admin'::text);

CREATE INDEX team_members_tenant_created ON public.team_members USING btree (tenant_id, created_at, id);

CREATE UNIQUE INDEX team_members_tenant_email ON public.team_members USING btree (tenant_id, lower(email));

CREATE INDEX team_members_tenant_seq ON public.team_members USING btree (tenant_id, seq DESC);

CREATE INDEX webhook_deliveries_created_at ON public.webhook_deliveries USING brin (created_at);

CREATE INDEX webhook_deliveries_due ON public.webhook_deliveries USING btree (next_attempt_at) WHERE (status = 'pending'::text);

CREATE INDEX webhook_deliveries_endpoint ON public.webhook_deliveries USING btree (endpoint_id, seq);

CREATE INDEX webhook_deliveries_object_order ON public.webhook_deliveries USING btree (endpoint_id, object_id, seq) WHERE (status = 'pending'::text);

CREATE INDEX webhook_endpoint_secrets_endpoint ON public.webhook_endpoint_secrets USING btree (endpoint_id, id);

CREATE UNIQUE INDEX webhook_endpoint_secrets_one_current ON public.webhook_endpoint_secrets USING btree (endpoint_id) WHERE (valid_until IS NULL);

CREATE INDEX webhook_endpoints_scope ON public.webhook_endpoints USING btree (tenant_id, environment, seq);

CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON public.audit_events FOR EACH STATEMENT EXECUTE FUNCTION public.audit_events_append_only();

CREATE TRIGGER audit_events_no_update_or_delete BEFORE DELETE OR UPDATE ON public.audit_events FOR EACH ROW EXECUTE FUNCTION public.audit_events_append_only();

ALTER TABLE ONLY public.api_key_credentials
    ADD CONSTRAINT api_key_credentials_key_id_fkey FOREIGN KEY (key_id) REFERENCES public.api_keys(id);

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES public.tenants(id);

ALTER TABLE ONLY public.momo_provider_secrets
    ADD CONSTRAINT momo_provider_secrets_provider_id_fkey FOREIGN KEY (provider_id) REFERENCES public.momo_providers(id);

ALTER TABLE ONLY public.momo_providers
    ADD CONSTRAINT momo_providers_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES public.tenants(id);

ALTER TABLE ONLY public.sessions
    ADD CONSTRAINT sessions_member_id_fkey FOREIGN KEY (member_id) REFERENCES public.team_members(id);

ALTER TABLE ONLY public.sessions
    ADD CONSTRAINT sessions_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES public.tenants(id);

ALTER TABLE ONLY public.team_members
    ADD CONSTRAINT team_members_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES public.tenants(id);

ALTER TABLE ONLY public.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_endpoint_id_fkey FOREIGN KEY (endpoint_id) REFERENCES public.webhook_endpoints(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.webhook_endpoint_secrets
    ADD CONSTRAINT webhook_endpoint_secrets_endpoint_id_fkey FOREIGN KEY (endpoint_id) REFERENCES public.webhook_endpoints(id) ON DELETE CASCADE;
