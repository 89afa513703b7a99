public import FileDownload
import Foundation

/// Downloads `s3://BUCKET/KEY` objects from AWS S3 or an S3-compatible store, with requests
/// signed by libcurl (AWS Signature Version 4), on the same I/O threads, body path, resume and
/// range rules as ``HTTPTransport``.
///
/// ```swift
/// var transports = TransportRegistry()
/// transports.register(try S3Transport(), for: "s3")
/// // An S3-compatible store:
/// transports.register(try S3Transport(configuration: .init(
///     endpoint: URL(string: "https://minio.example.org:9000"), region: "us-east-1")), for: "s3")
/// ```
///
/// ## An attempt, in order
/// 1. The settings are read again, in the AWS CLI's order (keys rotated in the shared files and a
///    profile changed there apply to the next attempt; the environment is the one
///    ``Configuration/environment`` captured, so variables changed after it was made do not):
///    - credentials: with ``Configuration/profile`` set, that profile's; else `AWS_ACCESS_KEY_ID`
///      and `AWS_SECRET_ACCESS_KEY` (with `AWS_SESSION_TOKEN`); else the profile `AWS_PROFILE`
///      names (or `default`): `aws_access_key_id`, `aws_secret_access_key` and
///      `aws_session_token` from `[NAME]` in the credentials file (`AWS_SHARED_CREDENTIALS_FILE`,
///      else `~/.aws/credentials`), then from `[profile NAME]` (`[default]`) in the config file
///      (`AWS_CONFIG_FILE`, else `~/.aws/config`). `~` is the environment's `HOME`.
///    - region: ``Configuration/region``, `AWS_REGION`, `AWS_DEFAULT_REGION`, the profile's
///      `region` in the config file, else `us-east-1`.
///    - endpoint: ``Configuration/endpoint``, `AWS_ENDPOINT_URL_S3`, `AWS_ENDPOINT_URL`, the
///      profile's `endpoint_url`, else AWS (`s3.REGION.amazonaws.com`).
///
///    No credentials, or a profile named by ``Configuration/profile`` or `AWS_PROFILE` in
///    neither file, fails with `DownloadError.Code.authenticationFailed` (not retryable) before
///    anything is sent; the message names the variables and files, never a secret.
/// 2. The object's HTTP URL: virtual-hosted or path style (``AddressingStyle``), the key
///    URI-encoded as SigV4 wants it. One `GET`, signed by libcurl (`CURLOPT_AWS_SIGV4` with
///    `aws:amz:REGION:s3`), carrying `x-amz-content-sha256` (the hash of the empty body) and,
///    with temporary credentials, `x-amz-security-token`; the request's own header fields
///    (`TransferOptions.headers`, fdl's `-H`) are not sent. The key's path is sent as it is
///    (`.`, `..` and `//` kept). Redirects are not followed (a signed
///    request is valid for one host). The credentials exist only in this attempt's request and
///    libcurl's handle: never in the download's options, a state file, resume data or a log.
/// 3. From there the attempt is ``HTTPTransport``'s: a resume asks `Range: bytes=OFFSET-` with
///    `If-Range` carrying the object's ETag (its validator, `Validator.Kind.entityTag`, strong),
///    and the object's size is its length; a 206 whose ETag or total size differs from the
///    remembered one is never appended to the bytes on disk; a 200 to a range restarts with
///    `RestartReason.validatorChanged`. AWS S3 (and moto) ignore `If-Range` and answer a 206 of a
///    replaced object: that 206 is refused before its first byte and, in the same attempt, the
///    whole object is asked for (the head says `RestartReason.validatorChanged`). A ranged request
///    (`TransferRequest.end`) asks for its range only; a replaced object fails it with a retryable
///    `DownloadError.Code.protocolViolation`.
///
/// Statuses S3 answers with are told apart: 403 (`SignatureDoesNotMatch`, `InvalidAccessKeyId`,
/// `AccessDenied`) fails with `DownloadError.Code.authenticationFailed` and a message naming the
/// access key (its first and last 4 characters) and where it came from; 400 with a session token
/// (an expired or invalid token, or a wrong region) the same; 404 (no such key or bucket) with
/// `DownloadError.Code.notFound`; 301 (the bucket is in another region) with a message asking for
/// the region; none of them is retryable. 307 (`TemporaryRedirect`, a new bucket not yet known
/// in every region) fails with a retryable `DownloadError.Code.badStatus`, so the download's
/// retry policy bounds the tries. Other failures are ``HTTPTransport``'s.
public final class S3Transport: Transport {
    /// The settings of this transport.
    public let configuration: Configuration
    private let http: HTTPTransport

    /// Creates a transport and starts its I/O threads. Nothing is read from the environment's
    /// AWS settings or the shared files yet: each attempt reads them.
    ///
    /// - Throws: `DownloadError` with code `DownloadError.Code.transport` when libcurl cannot be
    ///   initialised.
    public init(configuration: Configuration = Configuration()) throws {
        self.configuration = configuration
        self.http = try HTTPTransport(configuration: HTTPTransport.Configuration(
            maxRedirects: 0,
            caBundlePath: configuration.caBundlePath,
            caDirectoryPath: configuration.caDirectoryPath,
            skipsTLSVerification: configuration.skipsTLSVerification,
            asksForServerTrust: false,
            maxAuthenticationAttempts: 0,
            userAgent: configuration.userAgent,
            ioThreads: configuration.ioThreads,
            proxy: configuration.proxy))
    }

    /// Resume, validators, rate limit, expected length and ranges. Not `authentication`: the
    /// credentials come from the configuration, the environment and the shared files, never
    /// from the auth door.
    public var capabilities: TransportCapabilities {
        [.resume, .validators, .rateLimit, .expectedLength, .ranges]
    }

    /// Cancels running transfers and stops the I/O threads. The transport must not be used after.
    public func shutdown() async {
        await http.shutdown()
    }

    /// Performs one attempt; see the type's documentation for the order of events.
    public func transfer(_ request: TransferRequest, into writer: TransferWriter) async throws {
        let location = try S3Location(request.url)
        let settings = try S3Resolution.resolve(configuration)
        let credentials = settings.credentials
        var signed = request
        signed.url = try location.httpURL(endpoint: settings.endpoint, region: settings.region, style: configuration.addressingStyle)
        // The hash of the empty body: S3 wants the field, and libcurl 7.88 signs with its value.
        signed.options.headers = [HeaderField(name: "x-amz-content-sha256",
                                              value: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")]
        if let token = credentials.sessionToken {
            signed.options.headers.append(HeaderField(name: "x-amz-security-token", value: token, isSecret: true))
        }
        let signing = AWSSigning(region: settings.region, service: "s3", accessKeyID: credentials.accessKeyID,
                                 secretAccessKey: credentials.secretAccessKey)
        do {
            do {
                try await http.transfer(signed, into: writer, signing: signing)
            } catch let error as DownloadError where Self.asksWholeObjectNow(error, request: request, writer: writer) {
                // S3 ignores If-Range: a resume of a replaced object got a 206 of the new one, which
                // HTTPTransport refused before a byte (and remembered that the next request of this
                // download asks for the whole object). Ask for it now, in the same attempt.
                try await http.transfer(signed, into: writer, signing: signing)
            }
        } catch let error as DownloadError {
            throw Self.explained(error, location: location, settings: settings)
        }
    }

    /// Whether `error` is HTTPTransport refusing a resumed (open-ended) response as another
    /// object's, before anything reached the writer: the request again then asks for the whole
    /// object and restarts.
    private static func asksWholeObjectNow(_ error: DownloadError, request: TransferRequest, writer: TransferWriter) -> Bool {
        error.code == .protocolViolation && error.isRetryable && request.offset > 0 && request.end == nil && writer.head == nil
    }

    /// `error` with the S3 meaning of its status, when it has one.
    static func explained(_ error: DownloadError, location: S3Location, settings: S3Resolution) -> DownloadError {
        let object = "s3://\(location.bucket)/\(location.key)"
        let endpoint = settings.endpoint.map { "the S3 endpoint \($0.redactingPassword)" } ?? "AWS S3 in \(settings.region)"
        let key = "access key \(S3Credentials.masked(settings.credentials.accessKeyID)) from \(settings.credentials.source)"
        switch error.statusCode {
        case 403:
            return DownloadError(.authenticationFailed,
                                 "\(endpoint) refused \(object) (403): the secret access key or session token does not match the "
                                 + "\(key), or the key may not read the object",
                                 isRetryable: false, statusCode: 403)
        case 400 where settings.credentials.sessionToken != nil:
            return DownloadError(.authenticationFailed,
                                 "\(endpoint) refused \(object) (400): the session token of the \(key) is expired or invalid, "
                                 + "or the region \(settings.region) is wrong",
                                 isRetryable: false, statusCode: 400)
        case 404, 410:
            return DownloadError(.notFound, "\(endpoint) has no object \(object) (no such key, or no bucket \(location.bucket))",
                                 isRetryable: false, statusCode: error.statusCode)
        case 301:
            return DownloadError(.badStatus, "\(endpoint) answered 301 for \(object): the bucket is in "
                                 + "another region than \(settings.region); give the region (--region, AWS_REGION)",
                                 isRetryable: false, statusCode: 301)
        case 307:
            // TemporaryRedirect: a new bucket's name has not reached every region's DNS yet.
            return DownloadError(.badStatus, "\(endpoint) answered 307 (TemporaryRedirect) for \(object): a new bucket may not be "
                                 + "known everywhere yet, or it is in another region than \(settings.region); tried again",
                                 isRetryable: true, statusCode: 307)
        default:
            return error
        }
    }
}
