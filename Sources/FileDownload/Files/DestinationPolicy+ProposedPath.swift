public import Foundation

extension DestinationPolicy {
    /// The path a download named `name` (a file name or relative path) proposes in `directory`:
    /// the two joined with one `/` (none added when `directory` ends with one).
    ///
    /// Only the naming: it neither checks `name` (see ``problem(withRelativePath:)``) nor looks
    /// at the file system; the downloader's `freeDestination(for:policy:)` then picks the next
    /// free name when the file is taken.
    public static func proposedPath(in directory: String, name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    /// The path a download of `url` proposes in `directory` when it is given no name: the URL's
    /// file name made safe (`FileNameSanitizer.fileName(for:)`), joined as
    /// ``proposedPath(in:name:)`` joins it.
    public static func proposedPath(in directory: String, for url: URL) -> String {
        proposedPath(in: directory, name: FileNameSanitizer.fileName(for: url))
    }
}
