/// The PostgreSQL schema: the SpatiaLite file's tables, columns and view (times as RFC 3339
/// text beside epoch seconds, rules as JSON text), so that rows move between the two as they
/// are; PostGIS geometry under a GiST index; photos in the database.
enum PostGISSchema {
    /// Check-in photos' decoded-pixel SHA-256 and 64-bit perceptual hash (photos recorded before
    /// keep only image_sha256).
    static let version3: [String] = [
        "ALTER TABLE checkins ADD COLUMN pixel_sha256 text",
        "ALTER TABLE checkins ADD COLUMN phash int8",
        "CREATE INDEX checkins_by_pixels ON checkins(pixel_sha256) WHERE pixel_sha256 IS NOT NULL",
    ]

    /// A hunt's grace for late check-ins and the proof it asks for.
    static let version4: [String] = [
        "ALTER TABLE hunts ADD COLUMN late_grace_s float8 NOT NULL DEFAULT 0",
        "ALTER TABLE hunts ADD COLUMN proof text NOT NULL DEFAULT 'any'",
    ]

    /// The time badges of the hour and the day go by (GPS or device time, else the received time).
    static let version5: [String] = ["ALTER TABLE checkins ADD COLUMN clock_epoch float8"]
    /// A moderator overturning a rejection records its evidence again as a new check-in that
    /// names the rejected one (check-ins are append-only); once per rejection.
    static let version6: [String] = [
        "ALTER TABLE checkins ADD COLUMN overturns int8 REFERENCES checkins(id)",
        "CREATE UNIQUE INDEX checkins_by_overturns ON checkins(overturns) WHERE overturns IS NOT NULL",
    ]

    /// A check-in group's first statement: its locks (the catalogue's in shared mode, then the
    /// players' and photos' keys, sorted by the caller, in that order), then the definitions'
    /// generation and the players' names, read after the locks are granted (each statement of a
    /// function sees what committed before it started). A row without a player id carries the
    /// generation.
    static let version7: [String] = [
        """
        CREATE FUNCTION vsh_open_group(catalogue_key int8, lock_keys int8[], player_ids int8[])
        RETURNS TABLE (player_id int8, value text) LANGUAGE plpgsql VOLATILE AS $$
        BEGIN
            PERFORM pg_advisory_xact_lock_shared(catalogue_key);
            PERFORM count(pg_advisory_xact_lock(k)) FROM unnest(lock_keys) AS k;
            RETURN QUERY
                SELECT NULL::int8, COALESCE((SELECT s.value FROM sync_state s WHERE s.key = 'generation'), '')
                UNION ALL
                SELECT p.id, p.name FROM players p WHERE p.id = ANY(player_ids);
        END
        $$
        """
    ]

    /// Live check-ins by player and the time badges of days in a row go by (`GroupDayCandidatesSQL`
    /// asks for a range of it: without this index, every live check-in of the player was read).
    static let version8: [String] = [
        """
        CREATE INDEX checkins_live_by_clock ON checkins(player_id, (coalesce(clock_epoch, fix_epoch)))
            WHERE verdict IN ('accepted', 'pending')
        """
    ]

    /// A hunt's pace (`max_speed_kmh`) and least duration, a stop's own proof. The stored
    /// fingerprint of the hunt files is forgotten, so that the next sync reads them again.
    static let version9: [String] = [
        "ALTER TABLE hunts ADD COLUMN max_speed_kmh float8 NOT NULL DEFAULT 12",
        "ALTER TABLE hunts ADD COLUMN min_duration_s float8",
        "ALTER TABLE stops ADD COLUMN proof text",
        "DELETE FROM sync_state WHERE key IN ('hunts', 'hunts-stat')",
    ]

    /// Players' names as Unicode TR 39 skeletons (`PlayerName.lookalikeKey`), not unique: names
    /// registered before may already look alike.
    static let version10: [String] = [
        "ALTER TABLE players ADD COLUMN name_lookalike text",
        "CREATE INDEX players_by_lookalike ON players(name_lookalike)",
    ]

    /// Rate-limit buckets every instance shares (`SharedRateBuckets`): one row a key, taken by
    /// `vsh_take` in one atomic step by the database's own clock.
    static let version11: [String] = [
        "CREATE TABLE rate_buckets (key text PRIMARY KEY, tokens float8 NOT NULL, at float8 NOT NULL)",
        """
        CREATE FUNCTION vsh_take(k text, burst float8, per_second float8, cost float8, spend boolean)
        RETURNS float8 LANGUAGE plpgsql VOLATILE AS $$
        DECLARE
            now_s float8 := extract(epoch FROM clock_timestamp());
            have float8;
        BEGIN
            INSERT INTO rate_buckets(key, tokens, at) VALUES (k, burst, now_s) ON CONFLICT (key) DO NOTHING;
            SELECT least(burst, b.tokens + greatest(0, now_s - b.at) * per_second) INTO have
                FROM rate_buckets b WHERE b.key = k FOR UPDATE;
            IF have >= cost THEN
                UPDATE rate_buckets SET tokens = CASE WHEN spend THEN have - cost ELSE have END, at = now_s
                    WHERE key = k;
                RETURN 0;
            END IF;
            UPDATE rate_buckets SET tokens = have, at = now_s WHERE key = k;
            IF random() < 0.001 THEN
                DELETE FROM rate_buckets WHERE at < now_s - 30 * 86400;
            END IF;
            RETURN (cost - have) / per_second;
        END
        $$
        """,
    ]

    /// Hunts' and stops' names and descriptions in other languages (`translations`, JSON text).
    /// The stored fingerprint of the hunt files is forgotten, so that the next sync reads them again.
    /// Organisers: a third role.
    static let version13: [String] = [
        "ALTER TABLE players DROP CONSTRAINT players_role_check",
        "ALTER TABLE players ADD CONSTRAINT players_role_check CHECK (role IN ('player', 'moderator', 'organiser'))",
    ]

    /// The hunt files and badges.json as synced, for `vsh hunts export`; the next sync keeps them.
    static let version14: [String] = [
        "CREATE TABLE published_files (position integer PRIMARY KEY, name text NOT NULL UNIQUE, content bytea NOT NULL)",
        "DELETE FROM sync_state WHERE key IN ('hunts', 'hunts-stat')",
    ]

    /// Hunts as published revisions and at most one draft each; the revision a check-in was
    /// judged under.
    static let version15: [String] = [
        """
        CREATE TABLE hunt_revisions (
            hunt_id text NOT NULL,
            revision integer NOT NULL,
            published_at text NOT NULL,
            published_by text,
            source text NOT NULL CHECK (source IN ('console', 'files')),
            content bytea NOT NULL,
            PRIMARY KEY (hunt_id, revision)
        )
        """,
        "CREATE TABLE hunt_drafts (hunt_id text PRIMARY KEY, content bytea NOT NULL, saved_at text NOT NULL, saved_by text)",
        "ALTER TABLE hunts ADD COLUMN revision integer",
        "ALTER TABLE checkins ADD COLUMN hunt_revision integer",
    ]

    /// Private hunts (`visibility`, `join_code`) and the players who joined them. A membership
    /// names its hunt by id only: a publication writes the hunts' rows again.
    static let version16: [String] = [
        "ALTER TABLE hunts ADD COLUMN visibility text NOT NULL DEFAULT 'public'",
        "ALTER TABLE hunts ADD COLUMN join_code text",
        """
        CREATE TABLE hunt_members (
            hunt_id text NOT NULL,
            player_id bigint NOT NULL REFERENCES players(id),
            joined_at text NOT NULL,
            PRIMARY KEY (hunt_id, player_id)
        )
        """,
        "CREATE INDEX hunt_members_by_player ON hunt_members(player_id)",
    ]

    /// Announcements to the players, kept for pages opened later.
    static let version17: [String] = [
        """
        CREATE TABLE announcements (
            id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            hunt_id text,
            text text NOT NULL,
            by_name text NOT NULL,
            at text NOT NULL
        )
        """
    ]

    /// Banned players (0 or 1, as SQLite keeps it, so that `vsh db copy` moves it either way).
    static let version18: [String] = ["ALTER TABLE players ADD COLUMN banned bigint NOT NULL DEFAULT 0"]

    /// Whether a check-in's answer to its stop's question was right (1), wrong (0) or not judged
    /// (NULL), as SQLite keeps it; score events of the kind `answer`.
    static let version25: [String] = [
        "ALTER TABLE checkins ADD COLUMN answer_right bigint",
        "ALTER TABLE score_events DROP CONSTRAINT score_events_kind_check",
        "ALTER TABLE score_events ADD CONSTRAINT score_events_kind_check CHECK (kind IN ('stop', 'bonus', 'badge', 'answer'))",
    ]

    /// Each player's running totals in each hunt, written with their score events as
    /// `player_scores` is: a hunt's board reads its top rows through an index.
    static let version26: [String] = [
        """
        CREATE TABLE hunt_scores (
            player_id bigint NOT NULL REFERENCES players(id),
            hunt_id text NOT NULL,
            points bigint NOT NULL,
            hunts bigint NOT NULL,
            stops bigint NOT NULL,
            badges bigint NOT NULL,
            reached float8 NOT NULL,
            PRIMARY KEY (player_id, hunt_id)
        )
        """,
        """
        INSERT INTO hunt_scores
            SELECT player_id, hunt_id, SUM(points)::int8, COUNT(*) FILTER (WHERE kind = 'bonus'),
                COUNT(*) FILTER (WHERE kind = 'stop'), COUNT(*) FILTER (WHERE kind = 'badge'), MAX(at_epoch)
            FROM score_events GROUP BY player_id, hunt_id
        """,
        "CREATE INDEX hunt_scores_rank ON hunt_scores(hunt_id, points DESC, reached ASC)",
    ]

    /// Each team's running totals (`TeamBoard.totals`), written with its members' score events:
    /// a team board reads them instead of scoring every team of the hunt.
    static let version27: [String] = [
        """
        CREATE TABLE team_scores (
            team_id bigint PRIMARY KEY REFERENCES teams(id),
            hunt_id text NOT NULL,
            points bigint NOT NULL,
            stops bigint NOT NULL,
            completed bigint NOT NULL,
            badges text NOT NULL,
            reached float8 NOT NULL
        )
        """
    ]

    /// A photo's uses by one player in one probe: the picture's own and its pixels' index keyed
    /// by the player too. A picture many players sent had every one of its uses read at every
    /// check-in with it.
    static let version28: [String] = [
        "DROP INDEX checkins_by_image",
        "DROP INDEX checkins_by_pixels",
        "CREATE INDEX checkins_by_image ON checkins(image_sha256, player_id) WHERE image_sha256 IS NOT NULL",
        "CREATE INDEX checkins_by_pixels ON checkins(pixel_sha256, player_id) WHERE pixel_sha256 IS NOT NULL",
    ]

    /// Near copies found through the four 16-bit quarters of the perceptual hash (`NearCopySQL`)
    /// instead of by comparing every other picture of the league; each index holds the hash and
    /// the id, so that a quarter's rows are compared without reading the table.
    static let version29: [String] = NearCopySQL.quarterSQL.enumerated().map { quarter, expression in
        """
        CREATE INDEX checkins_phash_q\(quarter) ON checkins((\(expression))) INCLUDE (phash, id)
        WHERE phash IS NOT NULL
        """
    }

    /// Stops' printed codes and rotating-code secrets (`StoredStopSecrets`).
    static let version24: [String] = [
        "ALTER TABLE stops ADD COLUMN secrets text",
        "DELETE FROM sync_state WHERE key IN ('hunts', 'hunts-stat')",
    ]

    /// Players' last positions for the organisers' map of a hunt that shares them; the hunt files
    /// are read again for their new field.
    static let version23: [String] = [
        "ALTER TABLE hunts ADD COLUMN share_positions boolean NOT NULL DEFAULT false",
        """
        CREATE TABLE positions (
            hunt_id text NOT NULL,
            player_id bigint NOT NULL REFERENCES players(id),
            lat float8 NOT NULL,
            lon float8 NOT NULL,
            accuracy_m float8 NOT NULL,
            at text NOT NULL,
            at_epoch float8 NOT NULL,
            PRIMARY KEY (hunt_id, player_id)
        )
        """,
        "DELETE FROM sync_state WHERE key IN ('hunts', 'hunts-stat')",
    ]

    /// Erased accounts (`AccountStore.erase`).
    static let version22: [String] = ["ALTER TABLE players ADD COLUMN erased bigint NOT NULL DEFAULT 0"]

    /// The photos moderators put on the projector.
    static let version21: [String] = [
        "CREATE TABLE featured_photos (checkin_id bigint PRIMARY KEY REFERENCES checkins(id), by_name text NOT NULL, at text NOT NULL)"
    ]

    /// Organisers' bonuses and penalties, append-only.
    static let version20: [String] = [
        """
        CREATE TABLE adjustments (
            id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            player_id bigint REFERENCES players(id),
            team_id bigint REFERENCES teams(id),
            hunt_id text,
            points bigint NOT NULL,
            reason text NOT NULL,
            by_name text NOT NULL,
            at text NOT NULL,
            at_epoch float8 NOT NULL,
            CHECK ((player_id IS NULL) <> (team_id IS NULL))
        )
        """,
        "CREATE INDEX adjustments_by_player ON adjustments(player_id) WHERE player_id IS NOT NULL",
        "CREATE INDEX adjustments_by_team ON adjustments(team_id) WHERE team_id IS NOT NULL",
        "CREATE TRIGGER adjustments_no_update BEFORE UPDATE ON adjustments FOR EACH ROW EXECUTE FUNCTION vsh_append_only()",
        "CREATE TRIGGER adjustments_no_delete BEFORE DELETE ON adjustments FOR EACH ROW EXECUTE FUNCTION vsh_append_only()",
    ]

    /// Teams of a hunt, their members (one team a hunt for each player), and the team each
    /// check-in counted for, fixed when it is recorded.
    static let version19: [String] = [
        "ALTER TABLE hunts ADD COLUMN play text NOT NULL DEFAULT 'solo'",
        "ALTER TABLE hunts ADD COLUMN max_team_size bigint",
        """
        CREATE TABLE teams (
            id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            hunt_id text NOT NULL,
            name text NOT NULL,
            name_key text NOT NULL,
            join_code text NOT NULL UNIQUE,
            created_at text NOT NULL,
            UNIQUE (hunt_id, name_key)
        )
        """,
        """
        CREATE TABLE team_members (
            team_id bigint NOT NULL REFERENCES teams(id),
            hunt_id text NOT NULL,
            player_id bigint NOT NULL REFERENCES players(id),
            joined_at text NOT NULL,
            PRIMARY KEY (hunt_id, player_id)
        )
        """,
        "CREATE INDEX team_members_by_team ON team_members(team_id)",
        "ALTER TABLE checkins ADD COLUMN team_id bigint",
        "CREATE INDEX checkins_by_team ON checkins(team_id) WHERE team_id IS NOT NULL",
    ]

    static let version12: [String] = [
        "ALTER TABLE hunts ADD COLUMN translations text",
        "ALTER TABLE stops ADD COLUMN translations text",
        "DELETE FROM sync_state WHERE key IN ('hunts', 'hunts-stat')",
    ]

    static let version1: [String] = [
        "CREATE EXTENSION IF NOT EXISTS postgis",
        """
        CREATE TABLE hunts (
            id text PRIMARY KEY,
            position integer NOT NULL,
            name text NOT NULL,
            description text NOT NULL,
            difficulty text NOT NULL,
            bonus_points bigint NOT NULL,
            ordered boolean NOT NULL,
            timezone text NOT NULL,
            starts_at text,
            ends_at text,
            max_accuracy_m float8 NOT NULL,
            max_photo_age_s float8 NOT NULL,
            max_fix_age_s float8 NOT NULL DEFAULT 120,
            tolerance_m float8 NOT NULL,
            image text,
            file text NOT NULL
        )
        """,
        """
        CREATE TABLE stops (
            pk bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            id text NOT NULL UNIQUE,
            hunt_id text NOT NULL REFERENCES hunts(id) ON DELETE CASCADE,
            position integer NOT NULL,
            name text NOT NULL,
            description text NOT NULL,
            points bigint NOT NULL,
            image text,
            area_m2 float8 NOT NULL,
            geometry_json text NOT NULL,
            geom geometry(MultiPolygon, 4326) NOT NULL,
            featured boolean NOT NULL DEFAULT false,
            sponsor text
        )
        """,
        "CREATE INDEX stops_geom ON stops USING gist (geom)",
        "CREATE INDEX stops_by_hunt ON stops(hunt_id, position)",
        "CREATE TABLE sync_state (key text PRIMARY KEY, value text NOT NULL)",
        """
        CREATE TABLE players (
            id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            name text NOT NULL,
            name_key text NOT NULL UNIQUE,
            email text,
            created_at text NOT NULL,
            password_hash text,
            role text NOT NULL DEFAULT 'player' CHECK (role IN ('player', 'moderator')),
            avatar_file text
        )
        """,
        "CREATE INDEX players_by_email ON players (lower(email))",
        """
        CREATE TABLE checkins (
            id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            player_id bigint NOT NULL REFERENCES players(id),
            received_at text NOT NULL,
            source text NOT NULL CHECK (source IN ('photo', 'device', 'replay')),
            photo_file text,
            photo_sha256 text,
            image_sha256 text,
            lat float8,
            lon float8,
            accuracy_m float8,
            fix_time text,
            fix_epoch float8,
            hunt_id text,
            stop_id text,
            verdict text NOT NULL CHECK (verdict IN ('accepted', 'rejected', 'pending')),
            points bigint NOT NULL,
            rules text NOT NULL
        )
        """,
        "CREATE INDEX checkins_by_image ON checkins(image_sha256) WHERE image_sha256 IS NOT NULL",
        "CREATE INDEX checkins_by_player ON checkins(player_id, fix_epoch)",
        "CREATE INDEX checkins_by_verdict ON checkins(verdict)",
        """
        CREATE INDEX checkins_live_by_player ON checkins(player_id, fix_epoch)
            WHERE verdict IN ('accepted', 'pending')
        """,
        """
        CREATE TABLE reviews (
            id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            checkin_id bigint NOT NULL REFERENCES checkins(id),
            decision text NOT NULL CHECK (decision IN ('approved', 'rejected', 'revoked')),
            reason text NOT NULL,
            moderator text NOT NULL,
            decided_at text NOT NULL
        )
        """,
        "CREATE INDEX reviews_by_checkin ON reviews(checkin_id, id)",
        // The audit trail is append-only, as on SpatiaLite.
        """
        CREATE FUNCTION vsh_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            RAISE EXCEPTION '% are append-only', TG_TABLE_NAME;
        END
        $$
        """,
        """
        CREATE TRIGGER checkins_append_only BEFORE UPDATE OR DELETE ON checkins
            FOR EACH ROW EXECUTE FUNCTION vsh_append_only()
        """,
        """
        CREATE TRIGGER reviews_append_only BEFORE UPDATE OR DELETE ON reviews
            FOR EACH ROW EXECUTE FUNCTION vsh_append_only()
        """,
        """
        CREATE VIEW checkin_state AS
            SELECT c.*,
                CASE (SELECT r.decision FROM reviews r WHERE r.checkin_id = c.id ORDER BY r.id DESC LIMIT 1)
                    WHEN 'approved' THEN 'accepted'
                    WHEN 'rejected' THEN 'rejected'
                    WHEN 'revoked' THEN 'revoked'
                    ELSE c.verdict
                END AS state
            FROM checkins c
        """,
        """
        CREATE TABLE badges (
            id text PRIMARY KEY,
            position integer NOT NULL,
            name text NOT NULL,
            description text NOT NULL,
            points bigint NOT NULL,
            rule text NOT NULL
        )
        """,
        """
        CREATE TABLE score_events (
            id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            player_id bigint NOT NULL REFERENCES players(id),
            kind text NOT NULL CHECK (kind IN ('stop', 'bonus', 'badge')),
            hunt_id text NOT NULL,
            stop_id text,
            badge_id text,
            points bigint NOT NULL,
            at text NOT NULL,
            at_epoch float8 NOT NULL,
            checkin_id bigint NOT NULL
        )
        """,
        "CREATE INDEX score_events_by_player ON score_events(player_id, at_epoch)",
        "CREATE INDEX score_events_by_time ON score_events(at_epoch)",
        "CREATE INDEX score_events_by_checkin ON score_events(checkin_id)",
        "CREATE INDEX score_events_totals ON score_events(player_id, hunt_id, at_epoch, kind, points)",
        """
        CREATE TABLE player_scores (
            player_id bigint PRIMARY KEY REFERENCES players(id),
            points bigint NOT NULL,
            hunts bigint NOT NULL,
            stops bigint NOT NULL,
            badges bigint NOT NULL,
            reached float8 NOT NULL
        )
        """,
        "CREATE INDEX player_scores_rank ON player_scores(points DESC, reached ASC)",
        """
        CREATE TABLE sessions (
            token_hash text PRIMARY KEY,
            player_id bigint NOT NULL REFERENCES players(id),
            created_at text NOT NULL,
            expires_at float8 NOT NULL,
            last_used_at text NOT NULL
        )
        """,
        "CREATE INDEX sessions_by_player ON sessions(player_id)",
        """
        CREATE TABLE idempotency_keys (
            player_id bigint NOT NULL REFERENCES players(id),
            key text NOT NULL,
            fingerprint text NOT NULL,
            checkin_id bigint NOT NULL REFERENCES checkins(id),
            answer text NOT NULL,
            PRIMARY KEY (player_id, key)
        )
        """,
        """
        CREATE TABLE password_resets (
            token_hash text PRIMARY KEY,
            player_id bigint NOT NULL REFERENCES players(id),
            created_at text NOT NULL,
            expires_at float8 NOT NULL,
            used_at text
        )
        """,
        "CREATE INDEX password_resets_by_player ON password_resets(player_id)",
        // Photos and pictures, content-addressed (the key names the SHA-256 of the bytes).
        "CREATE TABLE photos (key text PRIMARY KEY, sha256 text NOT NULL, bytes bytea NOT NULL)",
    ]
}
