import FileDownload

extension Validator {
    /// A strong validator of the same kind that does not match this one: for SFTP the same size
    /// with another mtime, for HTTP another entity tag or date.
    func mismatching(size: Int64) -> Validator {
        switch kind {
        case .sizeAndModificationTime:
            let mtime = Int64(value.split(separator: ":").last ?? "") ?? 0
            return .sizeAndModificationTime(size: size, mtime: mtime == 1 ? 2 : 1)
        case .lastModified:
            return .lastModified(value == "Thu, 01 Jan 1970 00:00:01 GMT"
                ? "Thu, 01 Jan 1970 00:00:02 GMT" : "Thu, 01 Jan 1970 00:00:01 GMT")
        case .entityTag:
            return .entityTag("\"conformance-mismatch-\(value.count)\"")
        default:
            return Validator(kind: kind, value: value + "-mismatch", isStrong: true)
        }
    }
}
