extension Array {
    /// The index of the first element for which `belongs` is true, in an array where it is false
    /// for a prefix and true after it (binary search).
    func partitioningIndex(where belongs: (Element) -> Bool) -> Int {
        var low = 0, high = count
        while low < high {
            let middle = (low + high) / 2
            if belongs(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
