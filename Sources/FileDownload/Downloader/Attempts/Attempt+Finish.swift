import Foundation

extension Attempt {
    /// After a transfer returned: length, validation, flush and the move to the destination.
    ///
    /// With `segmentedLength` (several connections wrote the file) the file's size on disk is
    /// what must equal the announced length.
    func finish(sink: TransferSink, segmentedLength: Int64? = nil) async -> AttemptOutcome {
        do {
            if isStopped { return .stopped }
            guard let head = sink.head else {
                return .failed(DownloadError(.protocolViolation, "the transport finished without reporting a head"))
            }
            let length = segmentedLength == nil ? sink.fileLength : sink.sizeOnDisk ?? -1
            if let total = head.expectedLength, length != total {
                return .failed(DownloadError(.protocolViolation,
                                             "the transfer ended after \(length) of \(total) bytes", isRetryable: true))
            }
            var checks: CompletionChecks = head.expectedLength == nil ? [] : .announcedLength
            if options.expectedSize != nil { checks.insert(.expectedSize) }
            if options.sha256 != nil { checks.insert(.sha256) }
            if head.announcedSHA256 != nil { checks.insert(.serverDigest) }
            if let error = await validate(sink: sink) {
                if isStopped { return .stopped }
                StagingFile.remove(partPath)
                return .invalid(error)
            }
            if isStopped { return .stopped }
            let final: URL
            var directoryFlushError: (any Error)?
            if synchronize {
                // Flush, move, flush the directory: in a group with the files that finish at the
                // same time (CompletionFlusher), off the cooperative pool; the attempt returns
                // (and `completed` is announced) only once its group is on disk. With a delegate,
                // its last word comes between the flush and the move, so the two halves go
                // through the flusher separately.
                if delegate != nil {
                    try await flusher.flush(sink)
                    if let held = await askBeforeMove() { return held }
                    (final, directoryFlushError) = try await flusher.move(sink) { fileSystem in
                        try self.moveIntoPlace(head: head, sink: sink, fileSystem: fileSystem)
                    }
                } else {
                    (final, directoryFlushError) = try await flusher.complete(sink) { fileSystem in
                        try self.moveIntoPlace(head: head, sink: sink, fileSystem: fileSystem)
                    }
                }
                // The file is in place and whole: a file system that refuses the directory flush
                // (EIO, EINVAL) is logged, not failed (docs/states.md, "Files").
                if let directoryFlushError {
                    logger.warning("download '\(id)': \(final.path) is in place, but its directory could not be flushed (the entry may not survive a power loss): \(directoryFlushError)")
                }
            } else {
                if let held = await askBeforeMove() { return held }
                final = try moveIntoPlace(head: head, sink: sink, fileSystem: flusher.fileSystem)
            }
            return .completed(final, checks)
        } catch {
            if isStopped { return .stopped }
            return .failed(DownloadError.wrapping(error))
        }
    }

    /// Size, SHA-256 (the caller's ``DownloadOptions/sha256`` and the server's digest,
    /// ``TransferHead/announcedSHA256``, from one reading) and delegate checks of a finished
    /// staging file; `nil` when it passes. Size and hash are read through the sink's own
    /// descriptor (`fstat`, `pread`), so they are the checks of the file the sink wrote, whatever
    /// its name points to now.
    func validate(sink: TransferSink) async -> DownloadError? {
        if let want = options.expectedSize {
            guard let length = sink.sizeOnDisk else {
                return DownloadError(.fileSystem, "cannot read the size of the staging file \(partPath)")
            }
            if want != length {
                return DownloadError(.validationFailed, "the file has \(length) bytes but \(want) were expected")
            }
        }
        let want = options.sha256?.lowercased(), announced = sink.head?.announcedSHA256
        if want != nil || announced != nil {
            do {
                let got = try await BlockingFileWork.shared.run { try sink.sha256() }
                if let want, got != want {
                    return DownloadError(.validationFailed, "the SHA-256 of the file is \(got) but \(want) was expected")
                }
                if let announced, got != announced {
                    return DownloadError(.validationFailed,
                                         "the SHA-256 of the file is \(got) but the server announced \(announced) (its digest header)")
                }
            } catch {
                return DownloadError.wrapping(error)
            }
        }
        if let delegate, await !delegate.validateFile(at: URL(fileURLWithPath: partPath), id: id) {
            return DownloadError(.validationFailed, "the delegate rejected the downloaded file")
        }
        return nil
    }

    /// The delegate's last word before the move (``DownloaderDelegate/download(_:willMoveTo:)``):
    /// `nil` to move on; ``AttemptOutcome/held(_:)`` with the error it threw (the download then
    /// pauses, unless the downloader stops the attempt for another reason before it books the end:
    /// that reason wins); ``AttemptOutcome/stopped`` when it was stopped meanwhile.
    private func askBeforeMove() async -> AttemptOutcome? {
        guard let delegate else { return nil }
        do {
            try await delegate.download(id, willMoveTo: destination)
        } catch {
            if isStopped { return .stopped }
            return .held(DownloadError.wrapping(error))
        }
        return isStopped ? .stopped : nil
    }

    /// Moves the staging file to its destination, after checking that the attempt was not stopped
    /// meanwhile (a flush can outlast ``Downloader/stopTimeout``, and an abandoned attempt must
    /// not complete behind the downloader's back) and that its name still names the file the sink
    /// wrote and validation read (same device and inode): a file put in its place meanwhile is
    /// never moved into place. With ``DownloadOptions/usesSuggestedFileName`` the name is chosen
    /// here, and never replaces a file (``moveToServerName(head:fileSystem:)``). Returns where
    /// the file went. The move goes through `fileSystem`; the directory is not flushed here (with
    /// ``synchronize``, the ``CompletionFlusher`` flushes it once for its group).
    private func moveIntoPlace(head: TransferHead, sink: TransferSink, fileSystem: any CompletionFileSystem) throws -> URL {
        let part = partPath, destination = self.destination.path
        if isStopped {
            throw DownloadError(.cancelled, "the attempt was stopped before its file was moved into place")
        }
        guard sink.isNamed(by: part) else {
            throw DownloadError(.validationFailed,
                                "the staging file \(part) was replaced after it was written; the file put there is not moved to \(destination)")
        }
        // Checked again: a directory swapped for a link while the file downloaded is not followed.
        try DestinationParents.prepare(directory: DownloadPaths.directory(of: destination), below: downloadsDirectory,
                                       making: false)
        // Best effort, as curl -R: a file system that refuses times (EPERM on some mounts) does not
        // fail a complete, validated file.
        do {
            try RemoteTime.keep(head, options: options, onFileAt: part)
        } catch {
            logger.warning("download '\(id)': the server's modification time was not kept on the file: \(error)")
        }
        if options.usesSuggestedFileName { return try moveToServerName(head: head, fileSystem: fileSystem) }
        _ = try fileSystem.move(from: part, to: destination, replacing: true)
        return self.destination
    }
}
