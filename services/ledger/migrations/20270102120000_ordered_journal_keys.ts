import type { Knex } from 'knex';

/**
 * The journal's two lookup keys that were random, the command's MD5 (`command_key`, UNIQUE) and
 * the hash index on `reference_id`, put each new entry on a random page of an index that grows
 * with the journal. Once those indexes outgrow the server's buffers, every posting read one page
 * back from the operating system for each and, after every checkpoint, wrote each whole page to
 * the WAL again: at 10 million lines about 1.8 full-page images and 20 KB of WAL per transfer,
 * most of a posting's cost (docs/benchmarks.md, "Where a posting's time goes at 10 million
 * lines").
 *
 * Every id the services make starts, after its prefix, with the milliseconds it was made at
 * (contracts ids.ts, Crockford base32). Both keys now start with that time, so new entries land
 * at the end of each index, on pages already in memory:
 *
 * - `command_key(command_id)`: the 48-bit time of the id the command was made from, then the
 *   first 80 bits of the MD5 of the whole command id (one command per record step, so two
 *   commands made in the same millisecond differ there). Still a pure function of the command
 *   id, so the UNIQUE index refuses a second entry for one command for ever. Commands made before
 *   this migration ran (by their id's time) keep the plain MD5 their entries were keyed by, and
 *   so does a command id that does not start with such a time.
 * - `reference_key(reference_id)`: the time, shifted left 15 bits, and 15 bits of the id's hash:
 *   an 8-byte btree key in place of the hash index (22 bytes an entry instead of 36). A record's
 *   entries are found by it and the id rechecked; an id without a time gets its hash alone.
 *
 * On an existing journal the reference index is built once (time proportional to the journal);
 * `command_key`'s existing values stay.
 */
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const TIME_CHARS = 10;

/** The id's time in milliseconds as one SQL expression (so PostgreSQL inlines it), or NULL when it has none. */
function sortableIdMsSql(id: string): string {
  const time = `substr(${id}, strpos(${id}, '_') + 1, ${TIME_CHARS})`;
  const digits = Array.from(
    { length: TIME_CHARS },
    (_, i) => `(strpos('${CROCKFORD}', substr(${time}, ${i + 1}, 1)) - 1)::bigint * ${32n ** BigInt(TIME_CHARS - 1 - i)}`,
  );
  return `CASE WHEN ${time} ~ '^[${CROCKFORD}]{${TIME_CHARS}}$' THEN ${digits.join(' + ')} END`;
}

/** Created once: entries are keyed by it for ever, so a second run of this migration (after its down) keeps the first one's cut-off. */
async function createCommandKey(db: Knex): Promise<void> {
  const existing = (await db.raw(`SELECT to_regprocedure('command_key(text)') IS NOT NULL AS exists`)).rows as Array<{ exists: boolean }>;
  if (existing[0]?.exists) return;
  const now = (await db.raw(`SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint::text AS ms`)).rows as Array<{ ms: string }>;
  const ms = now[0]?.ms ?? '';
  await db.raw(`
    CREATE FUNCTION sortable_id_ms(id text) RETURNS bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE
      AS $$ SELECT ${sortableIdMsSql('id')} $$;
    COMMENT ON FUNCTION sortable_id_ms(text) IS 'The milliseconds an id was made at (its 10 Crockford base32 characters after the prefix), or NULL.';

    CREATE FUNCTION command_key(command_id text) RETURNS uuid LANGUAGE sql IMMUTABLE PARALLEL SAFE
      AS $$ SELECT CASE WHEN sortable_id_ms(command_id) >= ${BigInt(ms)}
                        THEN (lpad(to_hex(sortable_id_ms(command_id) & 281474976710655), 12, '0') || substr(md5(command_id), 1, 20))::uuid
                        ELSE md5(command_id)::uuid END $$;
    COMMENT ON FUNCTION command_key(text) IS 'journal_entries.command_key of a command id: its time then MD5 bits; plain MD5 for commands made before ${new Date(Number(ms)).toISOString()}. Never redefine it: entries are keyed by it for ever.';
  `);
}

export async function up(db: Knex): Promise<void> {
  await createCommandKey(db);
  await db.raw(`
    CREATE FUNCTION reference_key(reference_id text) RETURNS bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE
      AS $$ SELECT coalesce((sortable_id_ms(reference_id) & 281474976710655) << 15 | (hashtext(reference_id) & 32767), hashtext(reference_id)) $$;

    CREATE INDEX journal_entries_reference_key ON journal_entries (reference_key(reference_id));
    DROP INDEX journal_entries_reference;
  `);
}

export async function down(db: Knex): Promise<void> {
  await db.raw(`
    CREATE INDEX journal_entries_reference ON journal_entries USING hash (reference_id);
    DROP INDEX journal_entries_reference_key;
    DROP FUNCTION reference_key(text);
  `);
  // command_key() and sortable_id_ms() stay: entries posted since are keyed by them.
}
