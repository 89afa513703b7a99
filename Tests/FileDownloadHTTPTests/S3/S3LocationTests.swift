@testable import FileDownloadHTTP
import FileDownloadTestSupport
import FileDownload
import Foundation
import Testing

/// How `s3://BUCKET/KEY` becomes an HTTP URL, and which credentials, region and endpoint an
/// attempt reads, in the AWS CLI's order.
@Suite("S3 URLs and settings")
struct S3LocationTests {
    @Test("AWS: virtual-hosted for a bucket that is one DNS label, path style for a dotted one")
    func awsAddressing() throws {
        let plain = try S3Location(URL(string: "s3://my-bucket/dir/file.iso")!)
        #expect(try plain.httpURL(endpoint: nil, region: "eu-central-1", style: .automatic).absoluteString
            == "https://my-bucket.s3.eu-central-1.amazonaws.com/dir/file.iso")
        let dotted = try S3Location(URL(string: "s3://my.bucket/file.iso")!)
        #expect(try dotted.httpURL(endpoint: nil, region: "us-east-1", style: .automatic).absoluteString
            == "https://s3.us-east-1.amazonaws.com/my.bucket/file.iso")
        #expect(try plain.httpURL(endpoint: nil, region: "us-east-1", style: .path).absoluteString
            == "https://s3.us-east-1.amazonaws.com/my-bucket/dir/file.iso")
    }

    @Test("another endpoint: path style by default (its path kept), virtual-hosted on request")
    func endpointAddressing() throws {
        let location = try S3Location(URL(string: "s3://data/a%20b+c%C3%A9.bin")!)
        #expect(location.key == "a b+cé.bin")
        let endpoint = URL(string: "http://127.0.0.1:9000/storage/")!
        #expect(try location.httpURL(endpoint: endpoint, region: "us-east-1", style: .automatic).absoluteString
            == "http://127.0.0.1:9000/storage/data/a%20b%2Bc%C3%A9.bin")
        #expect(try location.httpURL(endpoint: URL(string: "https://s3.example.org")!, region: "x", style: .virtualHosted).absoluteString
            == "https://data.s3.example.org/a%20b%2Bc%C3%A9.bin")
    }

    @Test("a URL without a key, or naming a prefix, is refused before anything is sent", arguments: [
        "s3://bucket", "s3://bucket/", "s3://bucket/dir/", "https://bucket/key",
    ])
    func refusedURLs(_ text: String) {
        #expect(throws: DownloadError.self) { try S3Location(URL(string: text)!) }
    }

    @Test("credentials: the environment's keys before AWS_PROFILE's, the configuration's profile before both")
    func credentialOrder() throws {
        let home = FileManager.default.temporaryDirectory.appending(path: "s3-order-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        try FileManager.default.createDirectory(at: home.appending(path: ".aws"), withIntermediateDirectories: true)
        try "[default]\naws_access_key_id = DEFAULTKEY\naws_secret_access_key = d\n[p]\naws_access_key_id = PKEY\naws_secret_access_key = p\n"
            .write(to: home.appending(path: ".aws/credentials"), atomically: true, encoding: .utf8)
        try "[profile p]\nregion = eu-west-3\n[default]\nregion = ap-south-1\n"
            .write(to: home.appending(path: ".aws/config"), atomically: true, encoding: .utf8)
        func resolve(_ environment: [String: String], profile: String? = nil, region: String? = nil) throws -> S3Resolution {
            try S3Resolution.resolve(.init(region: region, profile: profile, environment: environment.merging(["HOME": home.path]) { $1 }))
        }
        let keys = ["AWS_ACCESS_KEY_ID": "ENVKEY", "AWS_SECRET_ACCESS_KEY": "e", "AWS_PROFILE": "p"]
        #expect(try resolve(keys).credentials.accessKeyID == "ENVKEY")
        #expect(try resolve(keys).region == "eu-west-3")
        #expect(try resolve(keys, profile: "default").credentials.accessKeyID == "DEFAULTKEY")
        #expect(try resolve([:]).credentials.accessKeyID == "DEFAULTKEY")
        #expect(try resolve([:]).region == "ap-south-1")
        #expect(try resolve(["AWS_PROFILE": "p", "AWS_DEFAULT_REGION": "us-west-2"]).region == "us-west-2")
        #expect(try resolve(["AWS_REGION": "sa-east-1", "AWS_DEFAULT_REGION": "us-west-2"], region: "ca-central-1").region == "ca-central-1")
        #expect(try resolve(["AWS_SHARED_CREDENTIALS_FILE": "/nonexistent", "AWS_ACCESS_KEY_ID": "K", "AWS_SECRET_ACCESS_KEY": "s"]).region
            == "ap-south-1")
        #expect(throws: DownloadError.self) { try resolve(["AWS_SHARED_CREDENTIALS_FILE": "/nonexistent", "AWS_CONFIG_FILE": "/nonexistent"]) }
    }

    /// A home with `.aws/credentials` and `.aws/config` holding `credentials` and `config`.
    private static func home(credentials: String, config: String) throws -> URL {
        let home = FileManager.default.temporaryDirectory.appending(path: "s3-home-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home.appending(path: ".aws"), withIntermediateDirectories: true)
        try credentials.write(to: home.appending(path: ".aws/credentials"), atomically: true, encoding: .utf8)
        try config.write(to: home.appending(path: ".aws/config"), atomically: true, encoding: .utf8)
        return home
    }

    @Test("a region that cannot be a host name and a signing scope is refused with a message, before anything is sent", arguments: [
        "us-east-1 # eu", "eu:central", "evil.example/x", "EU-WEST-1", "a b", String(repeating: "a", count: 65),
    ])
    func badRegions(_ region: String) throws {
        let environment = ["AWS_ACCESS_KEY_ID": "K", "AWS_SECRET_ACCESS_KEY": "s", "AWS_CONFIG_FILE": "/nonexistent",
                           "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent"]
        for configuration in [S3Transport.Configuration(region: region, environment: environment),
                              S3Transport.Configuration(environment: environment.merging(["AWS_REGION": region]) { $1 })] {
            let error = try #require(throws: DownloadError.self) { try S3Resolution.resolve(configuration) }
            #expect(error.code == .invalidURL && !error.isRetryable)
            #expect(error.messages.joined().contains("is not a region name"))
        }
        #expect(throws: DownloadError.self) {
            try S3Location(URL(string: "s3://b/k")!).httpURL(endpoint: nil, region: "a b/c", style: .path)
        }
    }

    @Test("an inline comment after a value of the shared files is not part of the value")
    func commentedValues() throws {
        let home = try Self.home(credentials: "[default]\naws_access_key_id = AKIDCOMMENTED # mine\naws_secret_access_key = s;x ; old\n",
                                 config: "[default]\nregion = eu-west-1 # work\n")
        defer { try? FileManager.default.removeItem(at: home) }
        let settings = try S3Resolution.resolve(.init(environment: ["HOME": home.path]))
        #expect(settings.region == "eu-west-1")
        #expect(settings.credentials.accessKeyID == "AKIDCOMMENTED")
        #expect(settings.credentials.secretAccessKey == "s;x")
    }

    @Test("exactly one slash separates bucket and key; . and .. segments and // are kept in the request path")
    func keyPaths() throws {
        let endpoint = URL(string: "http://127.0.0.1:9000")!
        let doubled = try S3Location(URL(string: "s3://b//k")!)
        #expect(doubled.key == "/k")
        #expect(try doubled.httpURL(endpoint: endpoint, region: "us-east-1", style: .path).absoluteString == "http://127.0.0.1:9000/b//k")
        let dotted = try S3Location(URL(string: "s3://b/a/../c/./d")!)
        #expect(dotted.key == "a/../c/./d")
        #expect(try dotted.httpURL(endpoint: endpoint, region: "us-east-1", style: .path).absoluteString
            == "http://127.0.0.1:9000/b/a/../c/./d")
    }

    @Test("a shared file that is not a regular file (/dev/zero, a FIFO) is refused, never waited on")
    func irregularSharedFiles() throws {
        let fifo = FileManager.default.temporaryDirectory.appending(path: "s3-fifo-\(UUID().uuidString)").path
        #expect(mkfifo(fifo, 0o600) == 0)
        defer { unlink(fifo) }
        for path in ["/dev/zero", fifo] {
            let error = try #require(throws: DownloadError.self) {
                try S3Resolution.resolve(.init(environment: ["AWS_SHARED_CREDENTIALS_FILE": path, "AWS_CONFIG_FILE": "/nonexistent"]))
            }
            #expect(error.code == .authenticationFailed)
            #expect(error.messages.joined().contains("\(path) is not a regular file"))
        }
        let none = try S3Resolution.resolve(.init(environment: ["AWS_SHARED_CREDENTIALS_FILE": "/dev/null", "AWS_CONFIG_FILE": "/dev/null",
                                                                "AWS_ACCESS_KEY_ID": "AKIAENVKEY0000000001", "AWS_SECRET_ACCESS_KEY": "s"]))
        #expect(none.credentials.accessKeyID == "AKIAENVKEY0000000001")
        let big = FileManager.default.temporaryDirectory.appending(path: "s3-big-\(UUID().uuidString)")
        try Data(repeating: UInt8(ascii: "#"), count: S3SharedFile.maxSize + 1).write(to: big)
        defer { try? FileManager.default.removeItem(at: big) }
        #expect(throws: DownloadError.self) {
            try S3Resolution.resolve(.init(environment: ["AWS_CONFIG_FILE": big.path, "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent"]))
        }
    }

    @Test("neither the secret nor the token is in a configuration's description, debug description or dump, nor in a message")
    func secretsNotShown() throws {
        let secret = "wJalrXUtnFEMIK7MDENGbPxRfiCYSECRETKEY1234", token = "FwoGZXIvYXdzTOKENVALUE5678abcdefghijkl"
        let home = try Self.home(
            credentials: "[p]\naws_access_key_id = AKIAPROFILEKEY0000001\naws_secret_access_key = \(secret)\naws_session_token = \(token)\n",
            config: "")
        defer { try? FileManager.default.removeItem(at: home) }
        let configuration = S3Transport.Configuration(
            environment: ["AWS_SECRET_ACCESS_KEY": secret, "AWS_SESSION_TOKEN": token, "AWS_ACCESS_KEY_ID": "AKIAENVKEY0000000001",
                          "HOME": home.path, "OTHER_SECRET": "kept-out"])
        #expect(configuration.environment["OTHER_SECRET"] == nil)
        #expect(configuration.environment["AWS_SECRET_ACCESS_KEY"] == secret)
        var dumped = ""
        dump(configuration, to: &dumped)
        for shown in [String(describing: configuration), String(reflecting: configuration), dumped, "\(configuration)"] {
            #expect(!shown.contains(secret) && !shown.contains(token) && !shown.contains("AKIAENVKEY0000000001"))
            #expect(shown.contains("AWS_SECRET_ACCESS_KEY"))
        }
        let settings = try S3Resolution.resolve(.init(profile: "p", environment: ["HOME": home.path]))
        #expect(settings.credentials.secretAccessKey == secret)
        let location = try S3Location(URL(string: "s3://b/k")!)
        var messages = [settings.credentials.description]
        for status in [301, 307, 400, 403, 404] {
            let error = S3Transport.explained(DownloadError(.badStatus, "HTTP \(status)", statusCode: status), location: location,
                                              settings: settings)
            messages += error.messages
        }
        for message in messages {
            #expect(!message.contains(secret) && !message.contains(token) && !message.contains("AKIAPROFILEKEY0000001"))
        }
    }

    @Test("a 307 TemporaryRedirect is retried; a 301 asks for the region; a 400 with a token may be the region")
    func statusMeanings() throws {
        let location = try S3Location(URL(string: "s3://b/k")!)
        let settings = S3Resolution(credentials: S3Credentials(accessKeyID: "K", secretAccessKey: "s", sessionToken: "t", source: "test"),
                                    region: "eu-west-1", endpoint: nil)
        func explained(_ status: Int) -> DownloadError {
            S3Transport.explained(DownloadError(.badStatus, "HTTP \(status)", statusCode: status), location: location, settings: settings)
        }
        #expect(explained(307).isRetryable && explained(307).messages.joined().contains("TemporaryRedirect"))
        #expect(!explained(301).isRetryable && explained(301).messages.joined().contains("--region"))
        #expect(explained(400).code == .authenticationFailed && explained(400).messages.joined().contains("the region eu-west-1 is wrong"))
    }

    @Test("a webhook's failure shows its URL's query names, never their values; a NUL in a field is refused")
    func webhookRedaction() async throws {
        let poster = WebhookPoster(configuration: .init(connectTimeout: .seconds(2), timeout: .seconds(5)))
        let refusing = try RefusingPort()  // held for the test: nothing listens there
        do {
            _ = try await poster.post(to: URL(string: "http://127.0.0.1:\(refusing.port)/hook?token=HOOKSECRET123&x=1")!, body: Data(), headers: [])
            Issue.record("a post to a closed port succeeded")
        } catch let failure as WebhookPoster.Failure {
            #expect(!failure.description.contains("HOOKSECRET123"))
            #expect(failure.description.contains("token=[redacted]"))
        }
        await #expect(throws: WebhookPoster.Failure.self) {
            try await poster.post(to: URL(string: "http://127.0.0.1:\(refusing.port)/hook")!, body: Data(), headers: [(name: "X", value: "a\0b")])
        }
    }
}
