import FileDownloadAgentClient
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What the agent keeps about deliveries, in `STATE/deliveries.json` (mode 0600), replaced
/// atomically (written to a temporary file, flushed with `fsync`, renamed over the old one, the
/// directory flushed) on every change, so a SIGKILL at any moment leaves the last whole state.
struct DeliveryFile: Codable, Sendable {
    /// The last journal sequence number looked at: events after it are looked at (again) by the
    /// next start, so an event journalled just before a SIGKILL still gets its deliveries.
    var cursor: Int64
    /// The journal these sequence numbers are of: 16 random hexadecimal digits, made with the
    /// file and again when the agent finds the cursor ahead of the journal (a new `agent.sqlite`);
    /// the first part of each idempotency key. `nil` in a file older than instances.
    var instance: String?
    /// The webhook and command each download named when it was added (`"notify"`), until it is
    /// forgotten.
    var targets: [String: AgentNotify] = [:]
    /// Deliveries not yet acknowledged, in the order they were made.
    var pending: [Delivery] = []
    /// Deliveries whose lifetime ended unacknowledged.
    var dead: [Delivery] = []

    init(cursor: Int64) {
        self.cursor = cursor
        instance = Self.newInstance()
    }

    /// 16 random lowercase hexadecimal digits.
    static func newInstance() -> String {
        String(format: "%016llx", UInt64.random(in: .min ... .max))
    }

    /// The state at `path`, or `nil` when there is no file.
    static func load(from path: String) throws -> DeliveryFile? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return try JSONDecoder().decode(DeliveryFile.self, from: data)
    }

    /// Replaces the file at `path` with this state (see the type's description).
    func save(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(self)
        let temporary = path + ".tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Self.failure("cannot write \(temporary)") }
        var written = 0
        let ok = data.withUnsafeBytes { buffer -> Bool in
            while written < buffer.count {
                let n = write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                if n < 0 { if errno == EINTR { continue }; return false }
                written += n
            }
            return fsync(descriptor) == 0
        }
        close(descriptor)
        guard ok else { throw Self.failure("cannot write \(temporary)") }
        guard rename(temporary, path) == 0 else { throw Self.failure("cannot replace \(path)") }
        let directory = open((path as NSString).deletingLastPathComponent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            fsync(directory)
            close(directory)
        }
    }

    private static func failure(_ what: String) -> any Error {
        NSError(domain: "fdl.deliveries", code: Int(errno),
                userInfo: [NSLocalizedDescriptionKey: "\(what): \(String(cString: strerror(errno)))"])
    }
}
