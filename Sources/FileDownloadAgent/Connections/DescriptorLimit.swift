#if canImport(Glibc)
import Glibc
#endif

/// The process's limit on open descriptors (`RLIMIT_NOFILE`).
enum DescriptorLimit {
    /// Raises the soft limit to the hard limit (an unprivileged process may) and returns the
    /// limit in force afterwards, with the soft limit it had before. When the hard limit is
    /// unlimited (`RLIM_INFINITY`), the soft limit goes to `nr_open`'s usual ceiling of 1,048,576.
    static func raiseToHard() -> (limit: Int, before: Int) {
        var limits = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits) == 0 else { return (1024, 1024) }
        let before = Int(clamping: limits.rlim_cur)
        var wanted = limits
        wanted.rlim_cur = limits.rlim_max == rlim_t.max ? 1_048_576 : limits.rlim_max
        if wanted.rlim_cur > limits.rlim_cur, setrlimit(Int32(RLIMIT_NOFILE.rawValue), &wanted) == 0 {
            return (Int(clamping: wanted.rlim_cur), before)
        }
        return (before, before)
    }
}
