public import FileDownload
import FileDownloadAgent
import FileDownloadSQLite
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One run of `fdl get` (or `fdl resume`): plans the downloads against the state directory, runs
/// them with a `Downloader`, reports as it goes, and returns the exit status.
///
/// In order: creates and locks the state directory and `DIR` (another `fdl` holding either is an
/// error); opens the store (`STATE/state.sqlite`, importing an older `state.json` once); warns about
/// stored downloads whose paths leave `DIR` and leaves them alone; plans each URL against the
/// other stored downloads (continue, already complete, or fresh); starts them; then reports every event
/// and redraws the display until every download of the command is completed, failed or cancelled.
/// A paused download keeps the session running (`fdl resume ID` from another terminal continues
/// it). Meanwhile it serves the agent's API on its socket (`GetSession+Server`), so
/// `fdl pause|resume|cancel|watch` from another terminal reach it.
/// SIGINT and SIGTERM shut the downloader down (the bytes are flushed and the state saved) and
/// end the session with ``ExitStatus/interrupted``; SIGWINCH redraws the display at the new size.
public actor GetSession {
    let settings: GetSettings
    let state: StateDirectory
    let printer: EventPrinter
    let transports: TransportRegistry
    var downloader: Downloader?
    var ids: [String] = []
    var outcomes = OutcomeTable()
    /// Completed downloads whose file nothing confirmed (`CompletionChecks`).
    var unverified: Set<String> = []
    /// The signal that stopped the session (SIGINT or SIGTERM); `nil` while none did.
    var stopSignal: Int32?
    /// Whether SIGINT or SIGTERM stopped the session.
    var interruptedBySignal: Bool { stopSignal != nil }
    /// Downloads paused by `fdl pause`: they keep the session running until resumed or cancelled.
    var paused: Set<String> = []
    /// The shutdown a signal started; the session waits for it before it reports and exits.
    var signalShutdown: Task<Void, Never>?
    /// The first URL of each download: secret header fields and `--user` go to its origin only.
    let origins = DownloadOrigins()
    /// The last queued `--on-complete` run (GetSession+OnComplete.swift).
    var onCompleteRuns: Task<Void, Never>?
    /// Every `--on-complete` run queued so far: SIGINT/SIGTERM cancel them all.
    var onCompleteQueue: [Task<Void, Never>] = []

    /// Prepares a session; nothing happens until ``run(resuming:)``.
    ///
    /// - Throws: ``CLIError`` with ``ExitStatus/usage`` when a URL's scheme has no transport in
    ///   this build.
    public init(settings: GetSettings) throws {
        self.settings = settings
        self.state = StateDirectory(outputDirectory: settings.outputDirectory, path: settings.stateDirectory)
        self.printer = EventPrinter(mode: settings.output)
        printer.quiet = settings.quiet
        printer.hasCredentials = !settings.credentials.isEmpty
        self.transports = try TransportFactory.make(settings)
        for url in settings.urls + settings.mirrors.joined() {
            do {
                _ = try transports.transport(for: url)
            } catch let error as DownloadError {
                throw CLIError(.usage, "\(url.redactingPassword): \(error.message)")
            }
        }
    }

    /// Runs the downloads and returns the exit status (see ``ExitStatus``).
    ///
    /// - Parameter resuming: stored downloads to continue (for `fdl resume`), in addition to the
    ///   settings' URLs; one whose paths leave the download directory is refused (nothing starts).
    /// - Throws: ``CLIError`` with ``ExitStatus/stateUnavailable`` when the state directory cannot
    ///   be used.
    public func run(resuming: [DownloadRecord] = []) async throws -> ExitStatus {
        let lock: StateLock
        do {
            try state.create()
            guard let held = try state.tryLock() else {
                let holder = state.lockHolder.map { " (pid \($0))" } ?? ""
                throw CLIError(.stateUnavailable,
                               "another fdl is working in \(state.outputDirectory.path)\(holder); "
                               + "use `fdl pause|resume|cancel ID -d \(state.outputDirectory.path)` or wait for it")
            }
            lock = held
        } catch let error as DownloadError {
            throw CLIError(.stateUnavailable, error.message)
        }
        defer { lock.release() }
        let jsonCheckpoints = printer.mode == .json
        let sqlite: SQLiteDownloadStore
        let stored: StoredRecords
        do {
            sqlite = try await state.openStore()
            stored = StoredRecords(try await sqlite.loadAll(), outputDirectory: state.outputDirectory)
        } catch let error as DownloadError {
            throw CLIError(.stateUnavailable, error.message)
        }
        stored.warnAboutRefused()
        let refusedResumes = StoredRecords(resuming, outputDirectory: state.outputDirectory).refused
        if let (id, problem) = refusedResumes.first {
            throw CLIError(.stateUnavailable, StoredRecords.refusal(id: id, problem: problem))
        }
        let store = CheckpointReportingStore(base: sqlite) { id, bytes in
            var line = JSONEventLine(type: "checkpoint", id: id)
            line.bytes = bytes
            // Checkpoints arrive on the store's executor; JSON lines are whole writes.
            if jsonCheckpoints { Terminal.write(line.encoded() + "\n") }
        }
        var configuration = DownloaderConfiguration(
            maxConcurrentDownloads: settings.concurrency,
            retryPolicy: settings.retryPolicy,
            downloadsDirectory: state.outputDirectory,
            defaultTransferOptions: settings.transferOptions)
        configuration.maxConnectionsPerHost = settings.maxConnectionsPerHost
        configuration.maxNetworkWait = settings.maxNetworkWait ?? GetSettings.defaultMaxNetworkWait
        configuration.logger = settings.verbose ? StderrLogHandler.logger(label: "FileDownload") : configuration.logger
        configuration.logger.logLevel = settings.verbose ? .debug : .critical
        var delegate = CLIDelegate(headers: settings.headers, credentials: settings.credentials, origins: origins)
        if settings.verbose { delegate.logger = StderrLogHandler.logger(label: "fdl") }
        delegate.refresher = settings.freshURLTimeout.map { AgentURLRefresher(timeout: $0) }
        // The downloader's own bound on the question is the same (its default is shorter).
        if let timeout = settings.freshURLTimeout { configuration.freshURLTimeout = timeout }
        let downloader = Downloader(configuration: configuration, transports: transports, store: store,
                                    delegate: delegate)
        self.downloader = downloader
        await downloader.setBandwidthLimit(settings.overallBytesPerSecond)
        let events = downloader.events()
        installSignalHandlers()
        let server = await startServing(downloader, store: sqlite, refresher: delegate.refresher)

        // The transfer options are the downloader's defaults (`defaultTransferOptions` above): the
        // downloader fills them in (`DownloadOptions.resolved(with:)`).
        let options = DownloadOptions(retryPolicy: settings.retryPolicy, maxConnections: settings.maxConnections,
                                      maxFileSize: settings.maxFileSize, keepsRemoteTime: settings.keepsRemoteTime)
        let planner = DownloadPlanner(outputDirectory: state.outputDirectory, allowsOverwrite: settings.allowOverwrite,
                                      stagingSuffix: configuration.stagingSuffix)
        var plans = planner.plan(urls: settings.urls, sha256: settings.sha256, names: settings.names,
                                 records: stored.trusted, options: options)
        plans += resuming.map { record in
            PlannedDownload(id: record.id, url: record.url, destination: record.destination,
                            sha256: record.options.sha256,
                            resume: DownloadPlanner.resumeData(
                                continuing: record, id: record.id, url: record.url,
                                destination: record.destination, options: record.options),
                            alreadyComplete: false)
        }
        for plan in plans { await start(plan, options: options, downloader: downloader) }

        let ticker = Task { [weak self] in
            while !Task.isCancelled {
                await self?.tick()
                try? await Task.sleep(for: .milliseconds(250))
            }
        }
        if !isSettled {
            for await event in events {
                await handle(event)
                // After a signal, read on until the shutdown ends the sequence: every download's
                // last state is stored by then.
                if isSettled, !interruptedBySignal { break }
            }
        }
        ticker.cancel()
        await ticker.value
        if !interruptedBySignal { await tick() }
        await stopServing(server)
        if let signalShutdown { await signalShutdown.value }
        await downloader.shutdown()
        finishRun()
        await finishOnCompleteRuns()
        let status = interruptedBySignal ? ExitStatus.interrupted : ExitStatus.combining(finals)
        summarize(status)
        return status
    }

    /// Starts one planned download, or reports it complete.
    func start(_ plan: PlannedDownload, options: DownloadOptions, downloader: Downloader) async {
        var plan = await continuingPartialFile(plan, options: options,
                                               stagingSuffix: downloader.configuration.stagingSuffix)
        var checkFailure: DownloadError?
        origins.record(plan.url, for: plan.id)
        if plan.alreadyComplete, settings.timestamping { (plan, checkFailure) = await checkingWithServer(plan) }
        let options = netOptions(options, for: plan)
        ids.append(plan.id)
        outcomes.register(plan.id)
        var added = JSONEventLine(type: "added", id: plan.id)
        added.url = plan.url.redactingPassword
        added.destination = plan.destination.path
        added.resumeFrom = plan.resume?.bytesOnDisk ?? 0
        added.keptFile = plan.keptFile?.path
        if let kept = plan.keptFile {
            printer.log(plan.notContinued ?? "\(plan.id): \(kept.path) (or its .part) was not downloaded by fdl and is kept; "
                        + "saving as \(plan.destination.path) (--allow-overwrite replaces it)")
        }
        if let checkFailure {
            printer.emit(added)
            outcomes[plan.id] = .failed
            printer.print(.failed(id: plan.id, error: checkFailure, resumeData: nil))
            return
        }
        if plan.alreadyComplete {
            outcomes[plan.id] = .completed
            printer.emit(added)
            var done = JSONEventLine(type: "completed", id: plan.id)
            done.file = plan.destination.path
            done.state = "alreadyComplete"
            done.verified = plan.sha256 == nil ? nil : true
            printer.emit(done)
            let how = plan.upToDate ? "up to date: the server's file is unchanged"
                : plan.sha256 == nil ? "the size fdl recorded" : "SHA-256 verified"
            printer.log("\(plan.id): already complete at \(plan.destination.path) (\(how))")
            return
        }
        printer.emit(added)
        if let resume = plan.resume {
            // In segments: the bytes of every segment (the library checks the file holds them).
            let have = resume.bytesDone
            if have > 0 { printer.log("\(plan.id): continuing from \(Formatting.bytes(have))") }
        }
        do {
            if var resume = plan.resume {
                resume.options.mirrors = options.mirrors
                resume.options.usesSuggestedFileName = options.usesSuggestedFileName
                resume.options.maxFileSize = options.maxFileSize  // this command's limit, not the stored one
                resume.options.keepsRemoteTime = options.keepsRemoteTime
                try await downloader.start(id: plan.id, resumeData: resume)
            } else {
                var own = options
                own.sha256 = plan.sha256
                try await downloader.start(id: plan.id, url: plan.url, destination: plan.destination, options: own)
            }
        } catch {
            let error = DownloadError.wrapping(error)
            outcomes[plan.id] = .failed
            printer.print(.failed(id: plan.id, error: error, resumeData: nil))
        }
    }

    /// Records final outcomes and prints the event (a completed one with what confirmed its file).
    func handle(_ event: DownloadEvent) async {
        if let id = event.id, !outcomes.contains(id) { return }
        var checks: CompletionChecks?
        if case .completed(let id, _) = event { checks = await downloader?.info(of: id)?.checks }
        printer.print(event, checks: checks)
        switch event {
        case .completed(let id, let file):
            outcomes[id] = .completed
            runOnComplete(id: id, file: file)
            if checks?.confirmsFile == false { unverified.insert(id) }
        case .failed(let id, let error, _):
            outcomes[id] = error.code == .validationFailed ? .verificationFailed : .failed
        case .paused(let id, _):
            notePaused(id)
        case .cancelled(let id):
            outcomes[id] = .stopped
            paused.remove(id)
        case .interrupted(let id, _, let retryIn) where retryIn == nil && !interruptedBySignal:
            // A download on hold (waiting for space or the network) continues by itself.
            let info = await downloader?.info(of: id)
            if info?.state == .interrupted, info?.waitReason == nil { outcomes[id] = .failed }
        case .onHold(let id, _):
            outcomes[id] = nil
        case .resumed(let id), .stateChanged(let id, .waiting), .stateChanged(let id, .downloading):
            outcomes[id] = nil
            paused.remove(id)
        default:
            break
        }
    }

    var isSettled: Bool { outcomes.allSettled }

    /// The outcomes of the session's downloads that have one, in start order.
    var finals: [SessionOutcome] { ids.compactMap { outcomes[$0] } }

    /// Redraws the display.
    func tick() async {
        guard !interruptedBySignal else { return }
        await redrawDisplay()
    }

    /// The last words: a summary line (or JSON `summary` event).
    func summarize(_ status: ExitStatus) {
        let finals = self.finals
        var line = JSONEventLine(type: "summary")
        line.completed = finals.count(where: { $0 == .completed })
        line.failed = finals.count(where: \.isFailure)
        line.stopped = finals.count(where: { $0 == .stopped })
        line.unverified = unverified.count
        line.exitCode = status.rawValue
        printer.emit(line)
        if status == .interrupted {
            printer.log("\(Self.stopWording(signal: stopSignal)), run the same command to continue (the state is saved in \(state.path))")
        } else {
            let unconfirmed = unverified.isEmpty ? "" : " (\(unverified.count) with a length not confirmed by the server)"
            printer.log("\(line.completed ?? 0) completed\(unconfirmed), \(line.failed ?? 0) failed, \(line.stopped ?? 0) stopped (exit \(status.rawValue): \(status.summary))")
        }
    }

    func installSignalHandlers() {
        SignalWatcher.install { [weak self] signal in
            Task { signal == SIGWINCH ? await self?.redrawDisplay() : await self?.interrupt(signal: signal) }
        }
    }

    /// Stops every download, keeping its bytes and state; the shutdown ends the event loop. Every
    /// `--on-complete` run is cancelled (a running one is killed with its process group), at each
    /// signal, so that the session does not wait for them.
    func interrupt(signal: Int32) {
        cancelOnCompleteRuns()
        guard !interruptedBySignal, let downloader else { return }
        stopSignal = signal
        signalShutdown = Task { await downloader.shutdown() }
    }
}
