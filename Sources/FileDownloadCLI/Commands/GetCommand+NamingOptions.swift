public import ArgumentParser

extension GetCommand {
    /// The "Naming" section of `fdl get --help`: where each file goes and under which name, and what happens to a file already there.
    public struct NamingOptions: ParsableArguments {
        @Option(name: [.customShort("P"), .customLong("directory-prefix"), .customLong("output-dir")], help: ArgumentHelp(
            "The same as -d DIR: where files go (as wget -P, curl --output-dir).", valueName: "DIR"))
        public var directoryPrefix: String?

        @Option(name: [.customShort("o"), .customLong("output")], help: ArgumentHelp(
            "File name in DIR for the one URL given (as aria2c -o); the directory is -d DIR. -o - writes the body to "
            + "standard output as it arrives (one connection, progress on standard error, no resume, no retry).",
            valueName: "NAME"))
        public var output: String?

        @Option(name: .customLong("name"), help: ArgumentHelp(
            "File name in DIR instead of the URL's; once per URL, in the same order.", valueName: "NAME"))
        public var names: [String] = []

        @Flag(name: [.customShort("J"), .customLong("content-disposition")],
              help: "Save each file under the name of the server's Content-Disposition (sanitised, kept in DIR, never over another file; as curl -J).")
        public var contentDisposition = false

        @Flag(help: "Replace a file at DIR/NAME that fdl did not download (by default it is kept and the download gets a new name).")
        public var allowOverwrite = false

        @Flag(name: [.customLong("no-clobber"), .customLong("nc", withSingleDash: true)],
              help: "Accepted for wget/curl habits: fdl never replaces a file it did not download (the default; see --allow-overwrite).")
        public var noClobber = false

        public init() {}
    }
}
