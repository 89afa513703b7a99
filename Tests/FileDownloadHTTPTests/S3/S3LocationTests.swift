@testable import FileDownloadHTTP
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
        #expect(try resolve(["AWS_PROFILE": "p"]).credentials.description.contains("PKEY") == false)
        #expect(try resolve(["AWS_SHARED_CREDENTIALS_FILE": "/nonexistent", "AWS_ACCESS_KEY_ID": "K", "AWS_SECRET_ACCESS_KEY": "s"]).region
            == "ap-south-1")
        #expect(throws: DownloadError.self) { try resolve(["AWS_SHARED_CREDENTIALS_FILE": "/nonexistent", "AWS_CONFIG_FILE": "/nonexistent"]) }
    }
}
