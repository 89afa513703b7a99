import Foundation
import FileDownload

/// A request from `fdl pause|resume|cancel ID` to the `fdl get` that runs on the same directory.
public struct ControlRequest: Sendable, Hashable, Codable {
    /// What to do with the download.
    public enum Action: String, Sendable, Hashable, Codable, CaseIterable {
        case pause, resume, cancel
    }

    public var action: Action
    public var id: String

    public init(action: Action, id: String) {
        self.action = action
        self.id = id
    }

    /// Leaves the request in `state`'s control directory and returns its path.
    public func post(to state: StateDirectory) throws -> String {
        let name = "\(Int64(Date().timeIntervalSince1970 * 1000))-\(UInt32.random(in: 0 ... .max)).json"
        let path = state.controlPath + "/" + name
        try AtomicFile.write(try JSONEncoder().encode(self), to: path)
        return path
    }

    /// Takes every pending request out of `state`'s control directory, oldest first. Files that are
    /// not requests are removed and skipped; anything that is not a regular file is left alone.
    public static func takeAll(from state: StateDirectory) -> [ControlRequest] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: state.controlPath)) ?? [])
            .filter { $0.hasSuffix(".json") }.sorted()
        return names.compactMap { name in
            let path = state.controlPath + "/" + name
            defer { _ = try? StagingFile.removeFile(path) }
            guard let data = FileManager.default.contents(atPath: path) else { return nil }
            return try? JSONDecoder().decode(ControlRequest.self, from: data)
        }
    }
}
