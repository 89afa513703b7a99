import ArgumentParser
import Foundation

extension GetCommand {
    /// `--cacert`, `--capath` and `-k` with the environment as curl reads it (``TLSTrust/resolve(caBundle:caDirectory:insecure:environment:)``).
    ///
    /// - Throws: `ValidationError` when `--cacert` is not a readable file or `--capath` not a
    ///   directory (a variable of the environment is taken as it is, as curl takes it).
    func tlsTrust(environment: [String: String]) throws -> TLSTrust {
        var isDirectory: ObjCBool = false
        if let caCertificate = network.caCertificate {
            guard FileManager.default.fileExists(atPath: caCertificate, isDirectory: &isDirectory), !isDirectory.boolValue,
                  FileManager.default.isReadableFile(atPath: caCertificate) else {
                throw ValidationError("--cacert '\(caCertificate)' is not a readable file of CA certificates (PEM)")
            }
        }
        if let caDirectory = network.caDirectory {
            guard FileManager.default.fileExists(atPath: caDirectory, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw ValidationError("--capath '\(caDirectory)' is not a directory of hashed CA certificates")
            }
        }
        return TLSTrust.resolve(caBundle: network.caCertificate, caDirectory: network.caDirectory, insecure: network.insecure, environment: environment)
    }
}
