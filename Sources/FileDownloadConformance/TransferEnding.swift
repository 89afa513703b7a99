import FileDownload

/// How a transfer ended, in a `Sendable` form that can cross tasks.
enum TransferEnding: Sendable, Equatable, CustomStringConvertible {
    case returned
    case cancelled
    case threw(String)

    /// Runs `transfer` and classifies its end.
    static func of(_ transfer: () async throws -> Void) async -> TransferEnding {
        do {
            try await transfer()
            return .returned
        } catch is CancellationError {
            return .cancelled
        } catch let error as DownloadError where error.code == .cancelled {
            return .cancelled
        } catch {
            return .threw(String(describing: error))
        }
    }

    var description: String {
        switch self {
        case .returned: "returned normally"
        case .cancelled: "was cancelled"
        case .threw(let error): "threw \(error)"
        }
    }
}
