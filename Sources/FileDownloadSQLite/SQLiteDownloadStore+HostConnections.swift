import FileDownload
import Foundation

extension SQLiteDownloadStore {
    // Declared async, so that a call on the concrete type is this store's query, not the
    // protocol's default that remembers nothing.

    /// The connection counts remembered per origin (table `host_connections`, schema version 8).
    ///
    /// - Throws: `DownloadError(.store, …)` when the database cannot be read.
    public func rememberedConnections() async throws -> [String: Int] {
        try perform("cannot read the remembered connections") { table in
            let s = try SQLiteStatement("SELECT origin, connections FROM host_connections", on: table.connection)
            defer { s.reset() }
            var counts: [String: Int] = [:]
            while try s.step() {
                if let origin = s.string(0), let count = s.int64(1), count >= 1 { counts[origin] = Int(clamping: count) }
            }
            return counts
        }
    }

    /// Remembers `count` (at least 1) for `origin` (`scheme://host:port`), replacing what was
    /// remembered for it.
    ///
    /// - Throws: `DownloadError(.store, …)` when the database cannot be written.
    public func rememberConnections(_ count: Int, forOrigin origin: String) async throws {
        try perform("cannot remember the connections of \(origin)") { table in
            let s = try SQLiteStatement("""
                INSERT OR REPLACE INTO host_connections (origin, connections, updated_at) VALUES (?1, ?2, ?3)
                """, on: table.connection)
            try s.bind(1, origin)
            try s.bind(2, Int64(max(1, count)))
            try s.bind(3, Date().timeIntervalSinceReferenceDate)
            try s.run()
        }
    }
}
