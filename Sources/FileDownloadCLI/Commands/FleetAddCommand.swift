import ArgumentParser
import FileDownload
import FileDownloadPostgres
import Foundation

/// `fdl add --postgres URL ...`: queues downloads in a fleet's shared queue (docs/fleet.md)
/// instead of handing them to the local agent. Reached through ``AddCommand`` when `--postgres`
/// is among its arguments.
struct FleetAddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Queue downloads in a fleet's queue in PostgreSQL, for `fdl worker` to download.",
        discussion: """
            Each download's destination is a path relative to the workers' directories: -o NAME, \
            the input file's out=NAME, or the name the URL suggests; its id is the destination \
            unless --id says otherwise. Everything is queued in one transaction: a duplicate id or \
            a bad destination queues nothing. Prints the number queued.
            """)

    @OptionGroup var postgres: PostgresOptions

    @Argument(help: ArgumentHelp("The URLs to download.", valueName: "URL"))
    var urls: [String] = []

    @Option(name: [.customShort("i"), .customLong("input-file")], help: ArgumentHelp("Read URLs (and out=NAME, checksum=sha-256=HEX) from FILE, as `fdl get -i`.", valueName: "FILE"))
    var inputFile: String?

    @Option(name: [.customShort("o"), .customLong("name")], help: ArgumentHelp("The destination (relative path) of the one URL.", valueName: "NAME"))
    var name: String?

    @Option(name: .customLong("id"), help: ArgumentHelp("The id of the one URL (default: its destination).", valueName: "ID"))
    var id: String?

    @Option(name: .customLong("priority"), help: "Higher runs first; equal priorities run in the order queued.")
    var priority: Int = 0

    @Option(name: .customLong("sha256"), help: ArgumentHelp("The expected SHA-256 of the one URL's file.", valueName: "HEX"))
    var sha256: String?

    func validate() throws {
        if urls.isEmpty, inputFile == nil { throw ValidationError("give URLs or -i FILE") }
        if name != nil || id != nil || sha256 != nil, urls.count != 1 || inputFile != nil {
            throw ValidationError("-o, --id and --sha256 need exactly one URL (use out= and checksum= in an input file)")
        }
        if let sha256 { _ = try GetCommand.checked(option: "--sha256") { try InputValidation.sha256(sha256) } }
        if let id { try GetCommand.checked(option: "--id") { try InputValidation.checkIdentifier(id) } }
    }

    func run() async throws {
        do {
            let downloads = try planned()
            let queue = PostgresDownloadQueue(settings: try postgres.settings())
            do {
                try await queue.add(downloads)
                await queue.close()
            } catch let error as DownloadError {
                await queue.close()
                let isUsage = [.invalidDestination, .invalidIdentifier, .invalidURL, .invalidHeader, .invalidChecksum].contains(error.code)
                throw CLIError(isUsage ? .usage : .stateUnavailable, error.message)
            }
            Terminal.write("fdl add: queued \(downloads.count) download(s) in \(queue.settings.endpoint)\n")
        } catch let error as CLIError {
            Terminal.writeError("fdl add: \(error.message)")
            throw ExitCode(error.status.rawValue)
        }
    }

    private func planned() throws -> [QueuedDownload] {
        var downloads: [QueuedDownload] = []
        func options(mirrors: [URL], sha256: String?) -> DownloadOptions {
            var options = DownloadOptions()
            options.priority = priority
            options.mirrors = mirrors
            options.sha256 = sha256?.lowercased()
            return options
        }
        func url(_ text: String) throws -> URL {
            let url: URL
            do { url = try GetCommand.parseURL(text) } catch let error as ValidationError { throw CLIError(.usage, error.message) }
            guard let scheme = url.scheme?.lowercased(), ["http", "https", "sftp", "ftp", "ftps", "s3"].contains(scheme) else {
                throw CLIError(.usage, "not an http, https, sftp, ftp, ftps or s3 URL: \(url.redactingPassword)")
            }
            if url.password != nil { throw CLIError(.usage, "a URL in the queue cannot carry a password: \(url.redactingPassword)") }
            return url
        }
        for text in urls {
            downloads.append(QueuedDownload(id: id, url: try url(text), destination: name, options: options(mirrors: [], sha256: sha256)))
        }
        if let inputFile {
            for entry in try InputFile.load(inputFile).entries {
                guard let first = entry.urls.first else { continue }
                downloads.append(QueuedDownload(url: try url(first), destination: entry.name,
                                                options: options(mirrors: try entry.urls.dropFirst().map(url), sha256: entry.sha256)))
            }
        }
        return downloads
    }
}
