import FileDownloadTestSupport
import Foundation
import Testing

/// `fdl get s3://...` run as a process against moto (signatures checked) on 127.0.0.1: keys from
/// the environment, a profile and `--endpoint-url` as the AWS CLI takes them, a refused secret
/// said plainly with exit status 1.
@Suite(.timeLimit(.minutes(10))) struct FDLS3Tests {
    func withServer(_ body: (S3Server, TemporaryDirectory) async throws -> Void) async throws {
        let server = try S3Server()
        let out = try TemporaryDirectory("fdl-s3-out")
        defer {
            server.stop()
            out.remove()
        }
        try await body(server, out)
    }

    /// The environment of an fdl run: `HOME` a scratch directory (no ~/.aws of the machine), no
    /// AWS variables but `variables`.
    func environment(_ out: TemporaryDirectory, _ variables: [String: String]) -> [String: String?] {
        var environment: [String: String?] = ["HOME": out.path]
        for name in ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_REGION",
                     "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE"] {
            environment[name] = .some(nil)
        }
        for (name, value) in variables { environment[name] = value }
        return environment
    }

    @Test func keysFromTheEnvironmentDownloadByteExactWithFourConnections() async throws {
        try await withServer { server, out in
            let data = sampleBytes(9 * 1024 * 1024, seed: 51)
            try server.put(data, bucket: "fdl", key: "dir/remote.bin")
            let result = try await FDLProcess.run(["get", "s3://fdl/dir/remote.bin", "-d", out.path, "-x", "4"],
                                                  environment: environment(out, server.environment()))
            #expect(result.status == 0, "stdout: \(result.stdout) stderr: \(result.stderr)")
            #expect(try Data(contentsOf: out.file("remote.bin")) == data)
        }
    }

    @Test func aProfileAndEndpointURLAsTheAWSCLITakesThem() async throws {
        try await withServer { server, out in
            let data = sampleBytes(100_000, seed: 52)
            try server.put(data, bucket: "fdl", key: "p.bin")
            try FileManager.default.createDirectory(at: out.file(".aws"), withIntermediateDirectories: true)
            try "[work]\naws_access_key_id = \(server.accessKeyID)\naws_secret_access_key = \(server.secretAccessKey)\n"
                .write(to: out.file(".aws/credentials"), atomically: true, encoding: .utf8)
            let result = try await FDLProcess.run(
                ["get", "s3://fdl/p.bin", "-d", out.path, "--profile", "work", "--region", "us-east-1",
                 "--endpoint-url", server.endpoint.absoluteString],
                environment: environment(out, ["AWS_ACCESS_KEY_ID": "AKIAIGNOREDIGNORED", "AWS_SECRET_ACCESS_KEY": "ignored"]))
            #expect(result.status == 0, "stdout: \(result.stdout) stderr: \(result.stderr)")
            #expect(try Data(contentsOf: out.file("p.bin")) == data)
        }
    }

    @Test func aWrongSecretFailsOnceWithAClearMessage() async throws {
        try await withServer { server, out in
            try server.put(sampleBytes(1000, seed: 53), bucket: "fdl", key: "secret.bin")
            var variables = server.environment()
            variables["AWS_SECRET_ACCESS_KEY"] = "wrong-secret-value"
            let result = try await FDLProcess.run(["get", "s3://fdl/secret.bin", "-d", out.path], environment: environment(out, variables))
            #expect(result.status == 1, "stdout: \(result.stdout) stderr: \(result.stderr)")
            #expect(result.stdout.contains("FAILED (authenticationFailed)"), "\(result.stdout)")
            #expect(result.stdout.contains("secret access key or session token does not match"), "\(result.stdout)")
            #expect(result.stdout.contains("AWS_SECRET_ACCESS_KEY"), "the hint: \(result.stdout)")
            #expect(!result.stdout.contains("wrong-secret-value") && !result.stderr.contains("wrong-secret-value"))
            #expect(!(try FileManager.default.contentsOfDirectory(atPath: out.path).contains("secret.bin")))
        }
    }

    @Test func aSessionTokenSignsAndNoSecretIsPrintedOrStoredEvenWithVerbose() async throws {
        try await withServer { server, out in
            let data = sampleBytes(300_000, seed: 54)
            try server.put(data, bucket: "fdl", key: "token.bin")
            let result = try await FDLProcess.run(["get", "s3://fdl/token.bin", "-d", out.path, "-v", "--json"],
                                                  environment: environment(out, server.environment(session: true)))
            #expect(result.status == 0, "stdout: \(result.stdout) stderr: \(result.stderr)")
            #expect(try Data(contentsOf: out.file("token.bin")) == data)
            for secret in [server.sessionSecretAccessKey, server.sessionToken] {
                #expect(!result.stdout.contains(secret) && !result.stderr.contains(secret))
                let state = FileManager.default.enumerator(atPath: out.path(".fdl"))?.compactMap { $0 as? String } ?? []
                for file in state {
                    let contents = (try? Data(contentsOf: out.file(".fdl/\(file)"))) ?? Data()
                    #expect(contents.range(of: Data(secret.utf8)) == nil, "a secret is in .fdl/\(file)")
                }
            }
        }
    }

    @Test func anHTTPSEndpointWithAPrivateCAWorksWithCacertAndFailsPlainlyWithout() async throws {
        try await withServer { server, out in
            let front = try S3TLSFront(for: server)
            defer { front.stop() }
            let data = sampleBytes(20 * 1024 * 1024, seed: 55)
            try server.put(data, bucket: "fdl", key: "tls.bin")
            var variables = environment(out, server.environment())
            for name in ["SSL_CERT_FILE", "SSL_CERT_DIR", "CURL_CA_BUNDLE"] { variables[name] = .some(nil) }
            let get = ["get", "s3://fdl/tls.bin", "-d", out.path, "--endpoint-url", front.endpoint.absoluteString]
            let refused = try await FDLProcess.run(get, environment: variables)
            #expect(refused.status == 1, "stdout: \(refused.stdout) stderr: \(refused.stderr)")
            #expect(refused.stdout.contains("tls.bin: FAILED (tlsFailure)"), "\(refused.stdout)")
            #expect(refused.stdout.contains("--cacert FILE"), "the hint names --cacert: \(refused.stdout)")
            #expect(!FileManager.default.fileExists(atPath: out.file("tls.bin").path))
            let trusted = try await FDLProcess.run(get + ["--cacert", front.caCertificate.path, "-x", "4"], environment: variables)
            #expect(trusted.status == 0, "stdout: \(trusted.stdout) stderr: \(trusted.stderr)")
            #expect(try Data(contentsOf: out.file("tls.bin")) == data)
        }
    }

    @Test func aBadEndpointURLIsAUsageError() async throws {
        let out = try TemporaryDirectory("fdl-s3-usage")
        defer { out.remove() }
        let result = try await FDLProcess.run(["get", "s3://fdl/x.bin", "-d", out.path, "--endpoint-url", "ftp://example.org"])
        #expect(result.status == 64, "stdout: \(result.stdout) stderr: \(result.stderr)")
        #expect(result.stderr.contains("--endpoint-url"))
    }
}
