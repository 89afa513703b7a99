import ArgumentParser

extension GetCommand {
    /// Marks `settings` for `-o -` (``StandardOutputTransfer``), refusing the options that need a
    /// file, a state or several connections.
    ///
    /// - Throws: `ValidationError` naming the options that cannot go with `-o -`.
    func checkStandardOutput(_ settings: inout GetSettings) throws {
        var refused: [String] = []
        if downloading.background { refused.append("--background") }
        if downloading.dryRun { refused.append("--dry-run") }
        if printing.json { refused.append("--json (the body is on standard output)") }
        if !downloading.sha256.isEmpty { refused.append("--sha256") }
        if !settings.mirrors.isEmpty { refused.append("--mirror") }
        if downloading.timestamping { refused.append("-N") }
        if naming.contentDisposition { refused.append("--content-disposition") }
        if naming.allowOverwrite { refused.append("--allow-overwrite") }
        if (connections.maxConnections ?? 1) > 1 { refused.append("-x") }
        if downloading.freshURLTimeout != nil { refused.append("--fresh-url-timeout") }
        guard refused.isEmpty else {
            throw ValidationError("-o - writes the body to standard output over one connection, without a file or resume; "
                                  + "it cannot go with \(refused.joined(separator: ", "))")
        }
        settings.writesToStandardOutput = true
    }
}
