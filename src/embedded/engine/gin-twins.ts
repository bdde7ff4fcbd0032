/**
 * The GIN twins of FerretDB's indexes, on its PostgreSQL backend (issue 26, item 3).
 *
 * FerretDB v1 sends an equality on a top-level field as `_jsonb->'owner' @> '"<value>"'` (a JSONB
 * containment), which the btree index it creates for `createIndex({ owner: 1 })` (on the expression
 * `_jsonb -> 'owner'`) cannot serve: every such query read the whole table. A GIN index on the same
 * expression with `jsonb_path_ops` can. Two event triggers in the cluster's `ferretdb` database
 * keep one beside each of FerretDB's indexes, with no application involvement:
 *
 * - on `CREATE INDEX` (`ddl_command_end`): for a btree index on one or more top-level paths
 *   (`_jsonb -> 'field'`), one GIN index named `<original>_mr_gin` with a `jsonb_path_ops` column per
 *   such path, in the same transaction. A multicolumn GIN index serves a condition on any subset of
 *   its columns equally well (unlike a btree), so a compound index gets one twin, which lives and
 *   dies with it. `_id` gets one too: FerretDB looks a document up by `_jsonb->'_id' @> ...` as well
 *   (checked with FerretDB's `explain`: a sequential scan; its btree on `_id` keeps `_id` unique).
 *   Skipped: nested paths (`_jsonb -> 'a' -> 'b'`: FerretDB v1 pushes no dotted path down),
 *   FerretDB's own metadata tables, and any index that is not a btree (the twins themselves).
 *   The twins are built without GIN's pending list (`fastupdate = off`): every search reads the
 *   whole list (up to 4 MB) until a vacuum merges it into the index, and the helper's temporary
 *   clusters run without autovacuum (measured: docs/decisions.md, Production); an insert pays for
 *   its entry at once instead.
 * - on `DROP INDEX` (`sql_drop`): drops the twin of each dropped index. A dropped collection or
 *   database (`DROP TABLE`, `DROP SCHEMA`) takes its twins with it.
 *
 * FerretDB lists the indexes of its own metadata (`listIndexes` never shows a twin) and names its
 * indexes `<table>_<index>_<hash>_idx`, so a twin can neither collide with one nor be mistaken for
 * one. A failure to build a twin is a warning in PostgreSQL's log, never a failed `createIndexes`.
 * The SQLite backend has no such mechanism: see docs/scaling.md.
 */

/** The suffix of a twin's name: `<original>_mr_gin`. */
export const GIN_TWIN_SUFFIX = '_mr_gin';

/**
 * The statements that install the triggers, each ending with `;` and a blank line: the terminator
 * of `postgres --single -j`, which runs them in the template cluster's `ferretdb` database. No
 * blank line may follow a `;` inside a function body.
 */
export const GIN_TWIN_SQL: string[] = [
  // PostgreSQL names are 63 bytes at most: a longer twin name keeps a hash of the original, so two
  // originals that share their first bytes never get the same twin.
  `CREATE FUNCTION public.model_routes_gin_twin_name(original text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog AS $$
  SELECT CASE WHEN octet_length(original) <= 63 - length('${GIN_TWIN_SUFFIX}') THEN original || '${GIN_TWIN_SUFFIX}'
    ELSE left(original, 46) || '_' || left(md5(original), 9) || '${GIN_TWIN_SUFFIX}' END
$$;`,
  `CREATE FUNCTION public.model_routes_gin_twin_create() RETURNS event_trigger
LANGUAGE plpgsql SET search_path = pg_catalog AS $$
DECLARE
  command record;
  source record;
  expression text;
  paths text[];
BEGIN
  FOR command IN SELECT objid FROM pg_event_trigger_ddl_commands() WHERE object_type = 'index' LOOP
    SELECT i.relname AS index_name, t.relname AS table_name, n.nspname AS schema_name, a.amname AS method, x.indnkeyatts AS keys
      INTO source
      FROM pg_index x
      JOIN pg_class i ON i.oid = x.indexrelid
      JOIN pg_class t ON t.oid = x.indrelid
      JOIN pg_namespace n ON n.oid = t.relnamespace
      JOIN pg_am a ON a.oid = i.relam
     WHERE x.indexrelid = command.objid;
    CONTINUE WHEN NOT FOUND OR source.method <> 'btree' OR source.table_name LIKE '\\_ferretdb\\_%';
    paths := ARRAY[]::text[];
    FOR key IN 1..source.keys LOOP
      -- A top-level path reads ((_jsonb -> 'owner'::text)); a nested one has a second arrow.
      expression := (regexp_match(pg_get_indexdef(command.objid, key, false), '^\\((\\(_jsonb -> ''(?:[^'']|'''')*''::text\\))\\)$'))[1];
      IF expression IS NOT NULL AND NOT format('%s jsonb_path_ops', expression) = ANY (paths) THEN
        paths := paths || format('%s jsonb_path_ops', expression);
      END IF;
    END LOOP;
    CONTINUE WHEN cardinality(paths) = 0;
    BEGIN
      EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON %I.%I USING gin (%s) WITH (fastupdate = off)',
        public.model_routes_gin_twin_name(source.index_name), source.schema_name, source.table_name, array_to_string(paths, ', '));
    EXCEPTION WHEN OTHERS THEN
      RAISE WARNING 'nestjs-model-routes: no GIN twin for index %.%: %', source.schema_name, source.index_name, SQLERRM;
    END;
  END LOOP;
END
$$;`,
  `CREATE FUNCTION public.model_routes_gin_twin_drop() RETURNS event_trigger
LANGUAGE plpgsql SET search_path = pg_catalog AS $$
DECLARE
  dropped record;
BEGIN
  FOR dropped IN SELECT schema_name, object_name FROM pg_event_trigger_dropped_objects()
                  WHERE object_type = 'index' AND right(object_name, length('${GIN_TWIN_SUFFIX}')) <> '${GIN_TWIN_SUFFIX}' LOOP
    BEGIN
      EXECUTE format('DROP INDEX IF EXISTS %I.%I', dropped.schema_name, public.model_routes_gin_twin_name(dropped.object_name));
    EXCEPTION WHEN OTHERS THEN
      RAISE WARNING 'nestjs-model-routes: GIN twin of index %.% not dropped: %', dropped.schema_name, dropped.object_name, SQLERRM;
    END;
  END LOOP;
END
$$;`,
  `CREATE EVENT TRIGGER model_routes_gin_twin_create ON ddl_command_end WHEN TAG IN ('CREATE INDEX')
  EXECUTE FUNCTION public.model_routes_gin_twin_create();`,
  `CREATE EVENT TRIGGER model_routes_gin_twin_drop ON sql_drop WHEN TAG IN ('DROP INDEX')
  EXECUTE FUNCTION public.model_routes_gin_twin_drop();`,
];
