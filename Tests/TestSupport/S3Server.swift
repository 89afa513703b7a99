public import Foundation
import Synchronization

/// An S3-compatible server for a test: moto's server mode (PyPI, pinned; `scripts/moto-s3.sh`
/// installs it into a virtualenv under the cache directory the first time) with its IAM
/// authentication on, so that it checks every request's SigV4 signature: a wrong secret gets
/// 403 `SignatureDoesNotMatch`, an unknown access key 403 `InvalidAccessKeyId`, a wrong session
/// token 400 `InvalidToken`.
///
/// It binds 127.0.0.1 port 0. It knows one IAM user with an access key allowed everything and
/// temporary credentials (with a session token) of a role that user assumed. ``put(_:bucket:key:)``
/// makes objects through signed requests (boto3). Its standard input is a pipe this object holds:
/// the server stops when ``stop()`` is called, this object goes, or the test process dies.
public final class S3Server: Sendable {
    /// `http://127.0.0.1:PORT`.
    public let endpoint: URL
    /// The IAM user's access key id and secret.
    public let accessKeyID: String
    public let secretAccessKey: String
    /// Temporary credentials of the role: they work only with ``sessionToken``.
    public let sessionAccessKeyID: String
    public let sessionSecretAccessKey: String
    public let sessionToken: String
    private let process: ChildProcess
    private let commands = Mutex<Void>(())
    private let scratch: TemporaryDirectory

    /// Starts the server and returns once it checks signatures. The first start in a cache
    /// directory installs moto (a minute or two); `limit` bounds the wait.
    ///
    /// - Throws: a ``TestFailure`` with the server's standard error when it does not start.
    public init(limit: Duration = .seconds(600)) throws {
        let scripts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appending(path: "scripts")
        scratch = try TemporaryDirectory("s3-server")
        let errorLog = scratch.path("server.err")
        process = try ChildProcess("/bin/bash", [scripts.appending(path: "moto-s3.sh").path],
                                   input: .pipe, output: .pipe, error: .file(errorLog))
        let errors = { (try? String(contentsOfFile: errorLog, encoding: .utf8)) ?? "" }
        let line: String
        do {
            line = try process.firstLine(limit: limit)
        } catch {
            process.kill()
            throw TestFailure("the S3 server (moto) said nothing within \(limit): \(errors())")
        }
        struct Started: Decodable {
            let endpoint: String, accessKeyID: String, secretAccessKey: String
            let sessionAccessKeyID: String, sessionSecretAccessKey: String, sessionToken: String
        }
        guard let started = try? JSONDecoder().decode(Started.self, from: Data(line.utf8)),
              let endpoint = URL(string: started.endpoint) else {
            process.kill()
            throw TestFailure("the S3 server (moto) said '\(line)' instead of its endpoint: \(errors())")
        }
        self.endpoint = endpoint
        accessKeyID = started.accessKeyID
        secretAccessKey = started.secretAccessKey
        sessionAccessKeyID = started.sessionAccessKeyID
        sessionSecretAccessKey = started.sessionSecretAccessKey
        sessionToken = started.sessionToken
    }

    /// Stores `data` as object `key` of `bucket` (made if missing), replacing the object there,
    /// and returns its ETag (quoted).
    ///
    /// - Throws: a ``TestFailure`` with the server's answer when it did not store it.
    @discardableResult
    public func put(_ data: Data, bucket: String, key: String) throws -> String {
        try commands.withLock { _ in
            let path = scratch.path("object-\(UUID().uuidString)")
            try data.write(to: URL(fileURLWithPath: path))
            defer { try? FileManager.default.removeItem(atPath: path) }
            let command = try JSONSerialization.data(withJSONObject: ["bucket": bucket, "key": key, "path": path])
            try process.standardInput?.write(contentsOf: command + Data("\n".utf8))
            let answer = try process.firstLine(limit: .seconds(120))
            guard answer.hasPrefix("ok ") else {
                throw TestFailure("the S3 server did not store s3://\(bucket)/\(key): \(answer)")
            }
            return String(answer.dropFirst(3))
        }
    }

    /// The environment variables that give the IAM user's keys (or, with `session`, the temporary
    /// credentials and their token), the region and this endpoint, as the AWS CLI reads them.
    public func environment(session: Bool = false) -> [String: String] {
        var variables = [
            "AWS_ACCESS_KEY_ID": session ? sessionAccessKeyID : accessKeyID,
            "AWS_SECRET_ACCESS_KEY": session ? sessionSecretAccessKey : secretAccessKey,
            "AWS_REGION": "us-east-1",
            "AWS_ENDPOINT_URL": endpoint.absoluteString,
        ]
        if session { variables["AWS_SESSION_TOKEN"] = sessionToken }
        return variables
    }

    /// Stops the server (SIGKILL) and removes its scratch files.
    public func stop() {
        process.kill()
        scratch.remove()
    }
}
