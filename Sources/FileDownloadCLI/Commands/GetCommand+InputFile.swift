import ArgumentParser
import Foundation

extension GetCommand {
    /// The URLs of one run: the arguments' first, then the input file's, with a name, a SHA-256
    /// and mirrors each (by position).
    struct CombinedURLs {
        var urls: [URL] = []
        var names: [String?] = []
        var sha256: [String?] = []
        var mirrors: [[URL]] = []
    }

    /// Puts the arguments' URLs and the input file's entries in one list. `--name` and `--sha256`
    /// values go to the URLs in order (the arguments' first, then the input file's); an entry's
    /// `out=` and `checksum=` fill what no option gave, and giving both for one URL is an error.
    ///
    /// - Throws: ``CLIError`` (usage) naming `source` and the line of an entry with a bad URL or
    ///   a value given twice.
    static func combine(arguments: [URL], names: [String], sha256: [String], input: [InputFile.Entry],
                        source: String) throws -> CombinedURLs {
        var all = CombinedURLs()
        let total = arguments.count + input.count
        all.urls.reserveCapacity(total)
        all.urls = arguments
        all.mirrors = Array(repeating: [], count: arguments.count)
        for entry in input {
            func fail(_ message: String) -> CLIError { CLIError(.usage, "\(source):\(entry.line): \(message)") }
            let urls = try entry.urls.map { text in
                do { return try parseURL(text) } catch let error as ValidationError { throw fail(error.message) }
            }
            all.urls.append(urls[0])
            all.mirrors.append(Array(urls.dropFirst()))
        }
        all.names = (0..<total).map { $0 < names.count ? names[$0] : nil }
        all.sha256 = (0..<total).map { $0 < sha256.count ? sha256[$0].lowercased() : nil }
        for (offset, entry) in input.enumerated() {
            let index = arguments.count + offset
            if let name = entry.name {
                guard all.names[index] == nil else {
                    throw CLIError(.usage, "\(source):\(entry.line): out= and a --name value for the same URL; give one")
                }
                all.names[index] = name
            }
            if let digest = entry.sha256 {
                guard all.sha256[index] == nil else {
                    throw CLIError(.usage, "\(source):\(entry.line): checksum= and a --sha256 value for the same URL; give one")
                }
                all.sha256[index] = digest
            }
        }
        // No trailing nils: a shorter array means the same, and reads better in a test or a log.
        while all.names.last == .some(nil) { all.names.removeLast() }
        while all.sha256.last == .some(nil) { all.sha256.removeLast() }
        return all
    }
}
