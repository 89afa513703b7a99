import FileDownload
import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension FTPTransport {
    /// The variables curl reads to choose a proxy for `ftp` and `ftps` URLs.
    static let proxyVariableNames = ["ftp_proxy", "FTP_PROXY", "ftps_proxy", "FTPS_PROXY", "all_proxy", "ALL_PROXY",
                                     "no_proxy", "NO_PROXY"]

    /// Why a transfer of `url` must not start: a proxy applies to it, and FTP through a proxy is
    /// not supported (connecting directly would bypass the proxy behind the user's back). `nil`
    /// when no proxy applies.
    ///
    /// - Parameters:
    ///   - own: the download's `TransferOptions.proxy`, which applies to every host.
    ///   - variables: the proxy variables, read as curl reads them: `ftp_proxy`, else `FTP_PROXY`
    ///     (`ftps_proxy`, `FTPS_PROXY` for `ftps`), else `all_proxy`, else `ALL_PROXY`; unless
    ///     `no_proxy` (else `NO_PROXY`) names the host. An empty variable counts as unset.
    static func proxyProblem(for url: URL, own: URL?, variables: [String: String]) -> String? {
        let shown = url.removingCredentials.redactingPassword
        let bypass = "FTP through a proxy is not supported"
        if let own {
            let proxy = HTTPTransport.ProxySettings.redactingUserInformation(in: own.absoluteString)
            return "\(bypass): the download's proxy \(proxy) applies to \(shown); download it without a proxy"
        }
        func first(_ names: String...) -> (name: String, value: String)? {
            names.lazy.compactMap { name in variables[name].map { (name, $0) } }.first { !$0.value.isEmpty }
        }
        let scheme = url.scheme?.lowercased() == "ftps" ? "ftps" : "ftp"
        guard let proxy = first("\(scheme)_proxy", "\(scheme.uppercased())_PROXY", "all_proxy", "ALL_PROXY") else {
            return nil
        }
        let host = url.host ?? ""
        if let noProxy = first("no_proxy", "NO_PROXY"), Self.noProxy(noProxy.value, matches: host) { return nil }
        let value = HTTPTransport.ProxySettings.redactingUserInformation(in: proxy.value)
        return "\(bypass): \(proxy.name) (\(value)) applies to \(shown); to connect directly, add the host to no_proxy "
            + "(no_proxy=\(host.contains(":") ? "[\(host)]" : host)) or unset \(proxy.name)"
    }

    /// Whether a `no_proxy` list names `host`, as libcurl 7.88 matches it: the list `*` matches
    /// every host; entries are separated by commas or blanks; a name matches itself and its
    /// subdomains (a leading dot is optional, case ignored); an IP address matches an entry that is
    /// that address or a CIDR range holding it (`10.0.0.0/8`, `::1/128`).
    static func noProxy(_ list: String, matches host: String) -> Bool {
        if list.trimmingCharacters(in: .whitespaces) == "*" { return true }
        var name = host.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        let address = addressBytes(name)
        if address == nil, name.hasSuffix(".") { name.removeLast() }
        for token in list.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }) {
            var entry = token.lowercased()
            if let address {
                var bits: Int?
                if let slash = entry.firstIndex(of: "/") {
                    bits = Int(entry[entry.index(after: slash)...])
                    entry = String(entry[..<slash])
                }
                if entry.hasPrefix("["), entry.hasSuffix("]") { entry = String(entry.dropFirst().dropLast()) }
                if let range = addressBytes(entry), Self.range(range, prefix: bits, contains: address) { return true }
            } else {
                if entry.hasSuffix(".") { entry.removeLast() }
                if entry.hasPrefix(".") { entry.removeFirst() }
                guard !entry.isEmpty else { continue }
                if name == entry || name.hasSuffix("." + entry) { return true }
            }
        }
        return false
    }

    /// The bytes of an IPv4 or IPv6 address written as text; `nil` for anything else.
    static func addressBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    /// Whether `address` lies in the first `prefix` bits of `range` (all of them when `prefix`
    /// is `nil` or zero, as curl reads a missing or zero prefix); addresses of different families
    /// never match.
    static func range(_ range: [UInt8], prefix: Int?, contains address: [UInt8]) -> Bool {
        guard range.count == address.count else { return false }
        let total = range.count * 8
        let bits = prefix.flatMap { $0 > 0 ? $0 : nil } ?? total
        guard bits <= total else { return false }
        for bit in 0..<bits {
            let mask = UInt8(0x80) >> UInt8(bit % 8)
            if range[bit / 8] & mask != address[bit / 8] & mask { return false }
        }
        return true
    }
}
