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

CREATE UNLOGGED TABLE public.rate_limit_buckets (
    bucket_key text NOT NULL,
    tokens double precision NOT NULL,
    rate_per_second double precision NOT NULL,
    burst double precision NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    CONSTRAINT rate_limit_buckets_burst_check CHECK ((burst >= (1)::double precision)),
    CONSTRAINT rate_limit_buckets_rate_per_second_check CHECK ((rate_per_second > (0)::double precision))
)
WITH (fillfactor='70');

CREATE TABLE public.request_log_days (
    tenant_id text,
    environment text NOT NULL,
    day date NOT NULL,
    status smallint NOT NULL,
    error_code text,
    requests bigint NOT NULL,
    CONSTRAINT request_log_days_environment_check CHECK ((environment = ANY (ARRAY['test'::text, 'live'::text])))
);

CREATE TABLE public.request_logs (
    id text NOT NULL,
    tenant_id text,
    environment text,
    correlation_id text NOT NULL,
    method text NOT NULL,
    path text NOT NULL,
    status smallint NOT NULL,
    api_key_id text,
    auth_mode text,
    request_signature_verified boolean DEFAULT false NOT NULL,
    idempotency_key text,
    actor_type text,
    actor_id text,
    duration_ms integer NOT NULL,
    error_code text,
    created_at timestamp with time zone NOT NULL,
    CONSTRAINT request_logs_environment_check CHECK ((environment = ANY (ARRAY['test'::text, 'live'::text])))
);

CREATE TABLE public.request_nonces (
    key_id text NOT NULL,
    nonce text NOT NULL,
    expires_at timestamp with time zone NOT NULL
);

ALTER TABLE ONLY public.knex_migrations ALTER COLUMN id SET DEFAULT nextval('public.knex_migrations_id_seq'::regclass);

ALTER TABLE ONLY public.knex_migrations_lock ALTER COLUMN index SET DEFAULT nextval('public.knex_migrations_lock_index_seq'::regclass);

ALTER TABLE ONLY public.knex_migrations_lock
    ADD CONSTRAINT knex_migrations_lock_pkey PRIMARY KEY (index);

ALTER TABLE ONLY public.knex_migrations
    ADD CONSTRAINT knex_migrations_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.rate_limit_buckets
    ADD CONSTRAINT rate_limit_buckets_pkey PRIMARY KEY (bucket_key);

ALTER TABLE ONLY public.request_log_days
    ADD CONSTRAINT request_log_days_key UNIQUE NULLS NOT DISTINCT (tenant_id, environment, day, status, error_code);

ALTER TABLE ONLY public.request_nonces
    ADD CONSTRAINT request_nonces_pkey PRIMARY KEY (key_id, nonce);

CREATE INDEX request_log_days_environment_day ON public.request_log_days USING btree (environment, day);

CREATE INDEX request_logs_correlation ON public.request_logs USING btree (correlation_id);

CREATE INDEX request_logs_created_brin ON public.request_logs USING brin (created_at);

CREATE INDEX request_logs_scope_time ON public.request_logs USING btree (tenant_id, environment, created_at, id);

CREATE INDEX request_nonces_expires_at_idx ON public.request_nonces USING btree (expires_at);
