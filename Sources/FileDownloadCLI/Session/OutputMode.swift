/// How `fdl get` reports: a live display, log lines, or JSON lines.
public enum OutputMode: String, Sendable, Hashable {
    /// A line per active download and a total line, redrawn in place a few times a second.
    case terminal
    /// One log line per event that matters, progress at most once a second per download.
    case plain
    /// One JSON object per line (schema in `docs/cli.md`).
    case json
}
