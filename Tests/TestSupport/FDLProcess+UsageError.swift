import Foundation

extension FDLProcess {
    /// Runs `fdl get http://127.0.0.1:9/x -d EMPTY arguments...` (nothing listens on port 9) to the
    /// end, and returns what it said and what it created in the empty directory `EMPTY`.
    public static func getInEmptyDirectory(_ arguments: [String]) async throws -> (status: Int32, stderr: String, created: [String]) {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let result = try await run(["get", "http://127.0.0.1:9/x", "-d", dir.path] + arguments)
        return (result.status, result.stderr, try FileManager.default.contentsOfDirectory(atPath: dir.path))
    }
}
