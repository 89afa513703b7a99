public import FileDownload

extension Validator.Kind {
    /// An FTP file's size alone (`"<size>"`), from a server that does not answer `MDTM`: weaker
    /// than `Validator.Kind.sizeAndModificationTime`, because a file rewritten with the same
    /// size under the same name keeps it. See docs/ftp.md.
    public static let ftpSize = Validator.Kind(rawValue: "ftp-size")
}

extension Validator {
    /// An FTP file's size alone, from a server without `MDTM`: not strong (see
    /// `Validator.Kind.ftpSize`).
    public static func ftpSize(_ size: Int64) -> Validator {
        Validator(kind: .ftpSize, value: "\(size)", isStrong: false)
    }
}
