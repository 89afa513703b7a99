import FileDownload
public import Foundation

/// A seeded generator of hostile variants of a JSON document: the fuzz input for what the library
/// reads from outside (resume data, stored records).
///
/// Each variant applies one to three mutations to the document: a leaf (anywhere in the tree)
/// replaced by a hostile number, string or value of another type, a key removed, or, on the bytes,
/// a truncation or a flipped byte. The same seed gives the same variants, so a failure names the
/// seed and the index that reproduce it.
///
/// The tests run as root and the code under test writes where a document says: a variant whose
/// path fields (`pathKeys`) name anything but an absolute path inside `root` is never handed out
/// (the generator draws again), so a fuzz run cannot write or delete outside its sandbox even
/// when the code under test trusts a path it should not.
public struct HostileJSON {
    private var random: SplitMix64
    /// Strings that ids, URLs, validators and digests should never be trusted with.
    public var hostileStrings: [String] = [
        "", ".", "..", "a\u{0}b", "\r\n", String(repeating: "a", count: 5_000), "%2e%2e%2f",
        "gopher://x/y", "mock://files/a", "mock://", "W/\"weak\"", "\u{202E}txt.exe", "~",
    ]
    private let pathKeys: Set<String>

    /// A generator whose variants keep the values of `pathKeys` confined (see ``isConfined(_:to:)``).
    public init(seed: UInt64, pathKeys: Set<String>) {
        random = SplitMix64(seed: seed)
        self.pathKeys = pathKeys
    }

    /// Whether every path field of `data` (when it is JSON) names an absolute path inside `root`,
    /// as a path or a `file:` URL. A document that is not JSON names no path.
    public func isConfined(_ data: Data, to root: String) -> Bool {
        guard let tree = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else { return true }
        let root = (root as NSString).standardizingPath
        return Self.pathValues(tree, keys: pathKeys).allSatisfy { value in
            guard let text = value as? String else { return true }  // not a string: no decoder takes it as a path
            let path = text.hasPrefix("file:") ? URL(string: text)?.path : text
            guard let path, path.hasPrefix("/"), !path.contains("\u{0}") else { return false }
            let standard = (path as NSString).standardizingPath
            return standard == root || standard.hasPrefix(root + "/")
        }
    }

    /// The values of every key in `keys`, anywhere in `tree`.
    private static func pathValues(_ tree: Any, keys: Set<String>) -> [Any] {
        if let object = tree as? [String: Any] {
            return object.flatMap { key, value in (keys.contains(key) ? [value] : []) + pathValues(value, keys: keys) }
        }
        if let array = tree as? [Any] { return array.flatMap { pathValues($0, keys: keys) } }
        return []
    }

    /// The seeds to run: `FDL_FUZZ_SEED` if set, else `defaultSeed`.
    public static func seed(default defaultSeed: UInt64) -> UInt64 {
        ProcessInfo.processInfo.environment["FDL_FUZZ_SEED"].flatMap { UInt64($0) } ?? defaultSeed
    }

    /// How many variants a fuzz test makes: `FDL_FUZZ_ITERATIONS` if set, else `defaultCount`
    /// (a bounded run in CI; set it higher to search longer).
    public static func iterations(default defaultCount: Int) -> Int {
        ProcessInfo.processInfo.environment["FDL_FUZZ_ITERATIONS"].flatMap { Int($0) } ?? defaultCount
    }

    /// The next variant of `document` (a JSON object or array), with `strings` among the hostile
    /// strings, that is confined to `root` (``isConfined(_:to:)``); `document` itself when twenty
    /// draws in a row were not.
    public mutating func variant(of document: Data, confinedTo root: String, strings: [String] = []) -> Data {
        for _ in 0..<20 {
            var data = document
            for _ in 0...below(3) {
                data = mutate(data, strings: strings)
            }
            if isConfined(data, to: root) { return data }
        }
        return document
    }

    private mutating func mutate(_ data: Data, strings: [String]) -> Data {
        switch below(10) {
        case 0:
            return data.prefix(below(max(1, data.count)))
        case 1:
            guard !data.isEmpty else { return data }
            var bytes = [UInt8](data)
            bytes[below(bytes.count)] ^= UInt8(truncatingIfNeeded: 1 << below(8))
            return Data(bytes)
        default:
            guard var tree = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else { return data }
            let paths = Self.leafPaths(tree, prefix: [])
            guard !paths.isEmpty else { return data }
            // One time in three, a path field: they are few among the leaves, and the most dangerous.
            let pathFields = paths.filter { if case .key(let key)? = $0.last { pathKeys.contains(key) } else { false } }
            let onPath = !pathFields.isEmpty && below(3) == 0
            let pool = onPath ? pathFields : paths
            let path = pool[below(pool.count)]
            // A path field gets one of the caller's strings (paths in its sandbox) most of the time.
            let value: Any? = below(8) == 0 ? nil
                : onPath && !strings.isEmpty && below(3) != 0 ? strings[below(strings.count)] : hostileValue(strings)
            tree = Self.replacing(tree, at: path[...], with: value)
            return (try? JSONSerialization.data(withJSONObject: tree, options: [.fragmentsAllowed])) ?? data
        }
    }

    /// A hostile replacement: an extreme number, a hostile string, or another type altogether.
    private mutating func hostileValue(_ extra: [String]) -> Any {
        let numbers: [Any] = [
            -1, 0, 1, Int64.max, Int64.min, Int64.max - 1, Int(Int32.max) + 1, 1 << 53, -(1 << 62),
            1e308, -1e308, 1.5, 0.000001, -0.0,
        ]
        switch below(5) {
        case 0, 1: return numbers[below(numbers.count)]
        case 2, 3:
            let strings = extra + hostileStrings
            return strings[below(strings.count)]
        default:
            let others: [Any] = [NSNull(), true, [Any](), [String: Any](), [Int64.max, Int64.max], [-1, -1], ["a": 1]]
            return others[below(others.count)]
        }
    }

    /// Every path (keys and indexes) to a leaf or container of `tree`.
    private static func leafPaths(_ tree: Any, prefix: [PathStep]) -> [[PathStep]] {
        var result: [[PathStep]] = prefix.isEmpty ? [] : [prefix]
        if let object = tree as? [String: Any] {
            for (key, value) in object { result += leafPaths(value, prefix: prefix + [.key(key)]) }
        } else if let array = tree as? [Any] {
            for (index, value) in array.enumerated() { result += leafPaths(value, prefix: prefix + [.index(index)]) }
        }
        return result
    }

    private enum PathStep { case key(String), index(Int) }

    /// `tree` with the value at `path` replaced (`nil`: the key removed, or the element set to null).
    private static func replacing(_ tree: Any, at path: ArraySlice<PathStep>, with value: Any?) -> Any {
        guard let step = path.first else { return value ?? NSNull() }
        switch step {
        case .key(let key):
            guard var object = tree as? [String: Any], let child = object[key] else { return tree }
            if path.count == 1, value == nil {
                object[key] = nil
            } else {
                object[key] = replacing(child, at: path.dropFirst(), with: value)
            }
            return object
        case .index(let index):
            guard var array = tree as? [Any], index < array.count else { return tree }
            array[index] = replacing(array[index], at: path.dropFirst(), with: value)
            return array
        }
    }

    /// A number in 0..<`bound`.
    private mutating func below(_ bound: Int) -> Int {
        Int(random.next() % UInt64(max(1, bound)))
    }
}
