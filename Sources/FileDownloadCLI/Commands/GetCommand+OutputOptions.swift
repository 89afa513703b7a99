public import ArgumentParser

extension GetCommand {
    /// The "Output" section of `fdl get --help`: what fdl prints.
    public struct OutputOptions: ParsableArguments {
        @Flag(help: "Print one JSON event per line instead of the display (schema in docs/cli.md).")
        public var json = false

        @Flag(name: [.customShort("q"), .customLong("quiet")], help: "Print nothing but errors.")
        public var quiet = false

        @Flag(name: [.customShort("v"), .customLong("verbose")], help: ArgumentHelp(
            "Print each request's and answer's status line and header fields to standard error (HTTP); "
            + "Authorization, Cookie and signed URL values are shown as [redacted]."))
        public var verbose = false

        public init() {}
    }
}
