import Foundation
import Testing
import VSHTestSupport

/// Issue 18: stops keep their geofence in a binary column beside the GeoJSON text; a league made
/// before it gets the column filled when it is opened, and lookups give the same answers.
@Suite struct BinaryGeometryTests {
    static func sql(_ db: String, _ statements: String) throws -> String {
        let result = try TestSupport.run(
            "/usr/bin/python3",
            [
                "-c",
                """
                import sqlite3, sys
                c = sqlite3.connect(sys.argv[1])
                for s in sys.argv[2].split(';'):
                    for row in c.execute(s): print('|'.join(str(v) for v in row))
                c.commit()
                """,
                db, statements,
            ])
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout
    }

    @Test func aLeagueFromBeforeTheColumnIsFilledWhenOpened() throws {
        let workspace = try Workspace()
        #expect(try workspace.vsh(["sync"]).status == 0)
        // Bulk lookups read the stored geofences: fixes inside, on a vertex, and outside every stop.
        let fixes = workspace.root.appendingPathComponent("fixes.csv").path
        try Data("36.082014,-115.172734\n36.1706,-115.1445\n36.0,-115.0\n36.1126,-115.1740\n".utf8).write(
            to: URL(fileURLWithPath: fixes))
        let lookup = ["locate", "--fixes", fixes]
        let inside = try workspace.vsh(lookup)
        #expect(inside.status == 0)
        #expect(inside.stdout.split(separator: "\n").count >= 3, "\(inside.stdout)")
        #expect(try Self.sql(workspace.db, "SELECT count(*) FROM stops WHERE geometry_bin IS NULL") == "0\n")
        // As a league of v16 had it: no column, no record of the migration.
        _ = try Self.sql(
            workspace.db,
            "ALTER TABLE stops DROP COLUMN geometry_bin; DELETE FROM grdb_migrations WHERE identifier = 'v17-binary-geometry'"
        )
        let again = try workspace.vsh(lookup, hunts: false)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout == inside.stdout)
        #expect(
            try Self.sql(workspace.db, "SELECT count(*) > 0 AND count(*) = count(geometry_bin) FROM stops")
                == "1\n")
        // A damaged binary geometry is read from the text instead; doctor still passes.
        _ = try Self.sql(workspace.db, "UPDATE stops SET geometry_bin = x'0102' WHERE id = 'welcome-sign'")
        let damaged = try workspace.vsh(lookup, hunts: false)
        #expect(damaged.stdout == inside.stdout)
        #expect(try workspace.vsh(["doctor"], hunts: false).status == 0)
    }
}
