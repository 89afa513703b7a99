public import Foundation

/// A fresh directory under the system's temporary directory, for one test or one test server;
/// removed by ``remove()`` (not when the value goes away).
public struct TemporaryDirectory: Sendable {
    /// The directory.
    public let url: URL

    /// Creates `fdl-<label>-<8 random hex digits>`; the label keeps only its letters, digits and
    /// dashes, and is the calling function's name unless one is given.
    public init(_ label: String = #function) throws {
        let name = "fdl-\(label.filter { $0.isLetter || $0.isNumber || $0 == "-" })-\(UUID().uuidString.prefix(8))"
        url = FileManager.default.temporaryDirectory.appending(path: name, directoryHint: .isDirectory)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// The directory's path.
    public var path: String { url.path }

    /// The URL of `name` inside the directory.
    public func file(_ name: String) -> URL { url.appending(path: name) }

    /// The path of `name` inside the directory.
    public func path(_ name: String) -> String { file(name).path }

    /// Creates the file `name` in the directory holding `contents`, and returns its path.
    public func createFile(_ name: String, contents: Data = Data()) throws -> String {
        let url = file(name)
        try contents.write(to: url)
        return url.path
    }

    /// Removes the directory and everything in it; harmless when it is gone already.
    public func remove() { try? FileManager.default.removeItem(at: url) }
}
