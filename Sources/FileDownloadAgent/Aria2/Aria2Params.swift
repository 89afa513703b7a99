/// The parameters of one aria2 call after the token, read by position; a missing or mistyped one
/// is aria2's error `The parameter at N has wrong type.` (N counts from 0 after the token).
struct Aria2Params: Sendable {
    let values: [Aria2JSON]

    init(_ values: [Aria2JSON]) {
        self.values = values
    }

    /// The GID at `index`.
    func gid(_ index: Int = 0) throws(Aria2Error) -> String {
        guard index < values.count, case .string(let gid) = values[index] else { throw wrongType(index) }
        return gid
    }

    /// The array of strings at `index`.
    func strings(_ index: Int) throws(Aria2Error) -> [String] {
        guard index < values.count, case .array(let items) = values[index] else { throw wrongType(index) }
        var strings: [String] = []
        for item in items {
            guard case .string(let text) = item else { throw wrongType(index) }
            strings.append(text)
        }
        return strings
    }

    /// The struct at `index`; an absent one is empty.
    func object(_ index: Int) throws(Aria2Error) -> [String: Aria2JSON] {
        guard index < values.count else { return [:] }
        guard case .object(let fields) = values[index] else { throw wrongType(index) }
        return fields
    }

    /// The whole number at `index`.
    func integer(_ index: Int) throws(Aria2Error) -> Int64 {
        guard index < values.count, let value = values[index].integer else { throw wrongType(index) }
        return value
    }

    /// The keys of `tellStatus`/`tellActive`/...: the array of strings at `index`, absent: all.
    func keys(_ index: Int) throws(Aria2Error) -> Set<String>? {
        guard index < values.count else { return nil }
        let keys = try strings(index)
        return keys.isEmpty ? nil : Set(keys)
    }

    private func wrongType(_ index: Int) -> Aria2Error {
        Aria2Error("The parameter at \(index) has wrong type.")
    }
}
