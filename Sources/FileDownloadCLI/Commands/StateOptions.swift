public import ArgumentParser
public import Foundation

/// The output and state directories, shared by every subcommand.
public struct StateOptions: ParsableArguments {
    @Option(name: [.customShort("d"), .customLong("dir")], help: ArgumentHelp(
        "Where files go; the state is kept in DIR/.fdl unless --state says otherwise.", valueName: "DIR"))
    public var directory: String = "."

    @Option(name: .customLong("state"), help: ArgumentHelp(
        "Where fdl keeps its state (default DIR/.fdl).", valueName: "STATE"))
    public var stateDirectory: String?

    public init() {}

    /// The output directory as an absolute file URL.
    public var url: URL { Self.absolute(directory) }

    /// The state directory.
    public var state: StateDirectory {
        StateDirectory(outputDirectory: url, path: stateDirectory.map { Self.absolute($0).path })
    }

    static func absolute(_ path: String) -> URL {
        URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
            .standardizedFileURL
    }
}
