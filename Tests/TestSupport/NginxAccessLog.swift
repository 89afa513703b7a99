public import Foundation

/// The access log of the tests' nginx servers (the one here and the HTTP tests' own): one line per
/// response, written as the response ends, in the format ``format(named:)``: `uri status body_bytes_sent "range"`.
public enum NginxAccessLog {
    /// The `log_format` that writes such lines (name it in `access_log PATH NAME;`).
    public static func format(named name: String) -> String {
        "log_format \(name) '$request_uri $status $body_bytes_sent \"$http_range\"';"
    }

    /// The lines of the log at `file`.
    public static func lines(of file: URL) throws -> [String] {
        try String(contentsOf: file, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    /// The body bytes of all responses in `lines` (the third field of each).
    public static func bodyBytes(_ lines: [String]) -> Int64 {
        lines.reduce(0) { sum, line in
            let fields = line.split(separator: " ")
            return sum + (fields.count > 2 ? Int64(fields[2]) ?? 0 : 0)
        }
    }
}
