import Foundation

/// The real ``CompletionFileSystem``: the sink's own descriptor for the data, `rename(2)` or
/// `renameat2(2)` for the move (``FileValidation``), `fsync(2)` of the directory.
package struct SystemCompletionFileSystem: CompletionFileSystem {
    package init() {}

    package func device(of sink: TransferSink) -> UInt64? {
        sink.device
    }

    package func startWriteback(of sink: TransferSink) {
        sink.startWriteback()
    }

    package func flushData(of sink: TransferSink) throws {
        try sink.synchronize()
    }

    package func move(from: String, to: String, replacing: Bool) throws -> Bool {
        if replacing {
            try FileValidation.moveAtomically(from: from, to: to, synchronize: false)
            return true
        }
        return try FileValidation.moveWithoutReplacing(from: from, to: to, synchronize: false)
    }

    package func flushDirectory(at path: String) throws {
        try FileValidation.synchronizeDirectory(at: path)
    }
}
