extension S3Transport {
    /// How a bucket is named in the request: in the host name or in the path.
    public enum AddressingStyle: String, Sendable, Hashable, CaseIterable {
        /// Virtual-hosted on AWS when the bucket name is one DNS label, path style otherwise and at
        /// any other endpoint.
        case automatic
        /// `https://BUCKET.ENDPOINT-HOST/KEY`.
        case virtualHosted = "virtual"
        /// `https://ENDPOINT-HOST/BUCKET/KEY`.
        case path
    }
}
