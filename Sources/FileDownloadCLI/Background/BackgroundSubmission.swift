import FileDownload
import FileDownloadAgentClient
import Foundation

/// `fdl add URL...` and `fdl get --background URL...`: hands the downloads to the user's download
/// agent (starting one when none runs, see ``AgentLauncher``), prints their ids, and returns
/// without waiting for them.
///
/// Each URL becomes one agent download whose id is its file name in DIR (as `fdl get` names
/// files: `--name`/`-o`, else the URL's last path component, then `name.1.ext`, ... when the agent
/// already has that id for another file, or a file fdl did not download is at that name). A URL
/// the agent already has for the same file is reported, not added twice. Header fields, the
/// SHA-256, the mirrors (`--mirror`, `-i`) and the destination go with the request; everything
/// else (retries, timeouts, concurrency) is the agent's.
///
/// The URLs go to the agent in batches (`POST /v1/downloads` with an array, 1,000 a request),
/// each under its first free name; a URL whose name the agent already uses is then tried one by
/// one under the next names.
struct BackgroundSubmission {
    let settings: GetSettings
    let socketPath: String

    /// What `fdl get --background` cannot hand over, by option: the agent applies its own.
    static func refusedOptions(_ settings: GetSettings, dryRun: Bool) -> [String] {
        var refused: [String] = []
        if dryRun { refused.append("--dry-run") }
        if !settings.credentials.isEmpty { refused.append("--user/--netrc") }
        if settings.proxy != nil || settings.noProxy != nil { refused.append("--proxy/--noproxy") }
        if settings.maxBytesPerSecond != nil { refused.append("--limit-rate") }
        if settings.overallBytesPerSecond != nil { refused.append("--limit-rate-total") }
        if settings.freshURLTimeout != nil { refused.append("--fresh-url-timeout") }
        if settings.timestamping { refused.append("--timestamping") }
        if settings.onComplete != nil { refused.append("--on-complete (the agent's own --on-complete, or \"notify\")") }
        if settings.usesServerFileName { refused.append("--content-disposition") }
        if !settings.identityFiles.isEmpty || settings.knownHostsFile != nil || settings.acceptNewHostKeys {
            refused.append("--identity/--known-hosts/--accept-new-host-keys")
        }
        if settings.allowHTTPSDowngrade { refused.append("--insecure-allow-http-downgrade") }
        let agentTrust = TLSTrust.resolve(caBundle: nil, caDirectory: nil, insecure: false,
                                          environment: ProcessInfo.processInfo.environment)
        if settings.trust.caBundlePath != agentTrust.caBundlePath || settings.trust.caDirectoryPath != agentTrust.caDirectoryPath {
            refused.append("--cacert/--capath")
        }
        if settings.trust.skipsVerification {
            // docs/agent-api.md, "TLS": the agent verifies every server; its API has no switch to stop that.
            refused.append("-k/--insecure (the agent verifies every server it downloads from)")
        }
        if settings.maxTime != nil { refused.append("--max-time") }
        if settings.maxFileSize != nil { refused.append("--max-filesize") }
        if settings.maxNetworkWait != nil { refused.append("--max-network-wait") }
        if settings.keepsRemoteTime { refused.append("-R/--remote-time") }
        if settings.cookieFile != nil || settings.headers.contains(where: { $0.name.lowercased() == "cookie" }) {
            refused.append("-b/--cookie/--load-cookies")
        }
        return refused
    }

    func run() async throws -> ExitStatus {
        let started = try await AgentLauncher.ensureRunning(socketPath: socketPath)
        let client = DownloadAgentClient(socketPath: socketPath)
        let json = settings.output == .json
        if let started {
            var line = JSONEventLine(type: "agentStarted")
            line.file = started.logPath
            say(json ? line.encoded() : "started the download agent (pid \(started.pid), socket \(socketPath), log \(started.logPath))",
                quiet: false)
        }
        var status = ExitStatus.success
        let batch = try await submitBatch(client: client)
        for (index, url) in settings.urls.enumerated() {
            do {
                let (info, isNew): (DownloadInfo, Bool)
                switch batch[index] {
                case .some(.success(let added)):
                    (info, isNew) = (added, true)
                case .some(.failure(let error)):
                    throw error
                case nil:
                    (info, isNew) = try await submit(url, index: index, client: client)
                }
                var line = JSONEventLine(type: isNew ? "added" : "known", id: info.id)
                line.url = info.url.redactingPassword
                line.destination = info.destination.path
                line.state = info.state.rawValue
                say(json ? line.encoded() : isNew ? "\(info.id): handed to the download agent -> \(info.destination.path)"
                    : "\(info.id): the download agent already has it (\(info.state.rawValue)) -> \(info.destination.path)",
                    quiet: settings.quiet)
            } catch let error as DownloadAgentClientError {
                Terminal.writeError("fdl: \(url.redactingPassword): the download agent refused it: \(error.message)")
                status = .failure
            }
        }
        if !json, !settings.quiet, status == .success {
            say("`fdl watch --agent` follows them, `fdl list --agent` lists them", quiet: false)
        }
        return status
    }

    private func say(_ text: String, quiet: Bool) {
        if !quiet { Terminal.write(text + "\n") }
    }

    /// The options of URL number `index`: the command's header fields, its SHA-256, mirrors and
    /// connections (`-x`).
    private func options(_ index: Int) -> DownloadOptions {
        var options = DownloadOptions(transfer: settings.transferOptions)
        options.sha256 = index < settings.sha256.count ? settings.sha256[index] : nil
        options.mirrors = index < settings.mirrors.count ? settings.mirrors[index] : []
        options.maxConnections = settings.maxConnections
        return options
    }

    /// The name URL number `index` is saved under before a free one is looked for.
    private func baseName(_ index: Int) -> String {
        let name = index < settings.names.count ? settings.names[index] : nil
        return FileNameSanitizer.sanitize(name ?? FileNameSanitizer.fileName(for: settings.urls[index]))
    }

    /// Sends every URL whose first name is free in DIR in batches; returns, by URL index, the
    /// download added or the agent's refusal, and `nil` for the URLs to go one by one (no batch
    /// was tried, or the agent already uses the name).
    private func submitBatch(client: DownloadAgentClient) async throws -> [Result<DownloadInfo, DownloadAgentClientError>?] {
        var outcome = [Result<DownloadInfo, DownloadAgentClientError>?](repeating: nil, count: settings.urls.count)
        var indices: [Int] = []
        var requests: [AgentDownloadRequest] = []
        var names = Set<String>()
        for index in settings.urls.indices {
            let name = baseName(index)
            let destination = settings.outputDirectory.appendingPathComponent(name)
            guard !FileManager.default.fileExists(atPath: destination.path), names.insert(name).inserted else { continue }
            indices.append(index)
            var request = AgentDownloadRequest(id: name, url: settings.urls[index], destination: destination,
                                               options: options(index), start: true)
            request.overwrite = settings.allowOverwrite ? true : nil
            requests.append(request)
        }
        guard requests.count > 1 else { return outcome }
        for (index, result) in zip(indices, try await client.submit(requests)) {
            if let download = result.download, result.status == 201 {
                outcome[index] = .success(download)
            } else if result.status != 409 {
                outcome[index] = .failure(DownloadAgentClientError(status: result.status, code: result.error ?? .http(result.status),
                                                                   message: result.message ?? "refused"))
            }
        }
        return outcome
    }

    /// Adds URL number `index` under the first free name; a download of the agent with the same
    /// URL and destination is returned as it is.
    private func submit(_ url: URL, index: Int, client: DownloadAgentClient) async throws -> (DownloadInfo, Bool) {
        let options = options(index)
        let base = baseName(index)
        for candidate in DestinationPolicy.candidates(base).prefix(1000) {
            let destination = settings.outputDirectory.appendingPathComponent(candidate)
            if FileManager.default.fileExists(atPath: destination.path) {
                if let known = try await client.info(of: candidate), known.url == url, known.destination == destination {
                    return (known, false)
                }
                if !settings.allowOverwrite { continue }
            }
            do {
                // The agent keeps a file already there (the download gets NAME.1.EXT) unless asked to replace it.
                var request = AgentDownloadRequest(id: candidate, url: url, destination: destination, options: options, start: true)
                request.overwrite = settings.allowOverwrite ? true : nil
                return (try await client.submit(request), true)
            } catch let error as DownloadAgentClientError where error.status == 409 {
                if let known = try await client.info(of: candidate), known.url == url, known.destination == destination {
                    return (known, false)
                }
                continue
            }
        }
        throw DownloadAgentClientError(status: 409, code: .duplicateID, message: "every name from \(base) to 999 is taken in the agent")
    }
}
