/// Which columns a frame shows and how wide each is, chosen once per frame so that the lines
/// line up and none is wider than the terminal. Pure.
///
/// As the terminal gets narrower, columns go in this order: the bar shrinks from 20 cells to 10,
/// then goes; then the ETA; then the expected size (`8.2 MiB` instead of `8.2 MiB/20.0 MiB`); then
/// the speed (or state); then the bytes; then the percentage. The name is shortened in the
/// middle as needed (at least 8 columns while any column is left). A number is never cut. Widths
/// are terminal columns: a wide (CJK) character takes two.
struct FrameLayout: Hashable {
    var nameWidth: Int
    var barCells: Int?
    var showsETA = true
    var showsExpected = true
    var showsRate = true
    var showsSize = true
    var showsPercent = true
    var percentWidth = 0
    var sizeWidth = 0
    var rateWidth = 0
    var etaWidth = 0

    static let separator = "  "
    static let maxBarCells = 20
    static let minBarCells = 10
    static let minNameWidth = 8
    static let preferredNameWidth = 24
    static let maxNameWidth = 40

    /// The widest layout in which every one of `rows` fits in `width` columns.
    static func fitting(_ rows: [RowCells], width: Int) -> FrameLayout {
        let longest = rows.map { Formatting.columns($0.name) }.max() ?? 0
        let nameMin = min(minNameWidth, longest)
        for level in 0...7 {
            var layout = FrameLayout(nameWidth: 0, barCells: level == 0 ? maxBarCells : nil)
            layout.showsETA = level < 3
            layout.showsExpected = level < 4
            layout.showsRate = level < 5
            layout.showsSize = level < 6
            layout.showsPercent = level < 7
            layout.measure(rows)
            let fixed = layout.columnsWidth
            if level < 2, rows.contains(where: \.hasBar) {
                // The bar takes what the name does not need, between 10 and 20 cells.
                let room = width - fixed - min(preferredNameWidth, longest) - separator.count - 2
                guard room >= minBarCells || level == 1 else { continue }
                let cells = min(maxBarCells, max(minBarCells, room))
                layout.barCells = cells
                guard fixed + separator.count + cells + 2 + nameMin <= width else { continue }
            } else {
                layout.barCells = nil
                guard level == 7 || fixed + nameMin <= width else { continue }
            }
            layout.nameWidth = max(0, min(longest, maxNameWidth, width - layout.columnsWidth - layout.barWidth))
            return layout
        }
        return FrameLayout(nameWidth: max(0, min(longest, width)), barCells: nil)
    }

    /// Sets the column widths to the widest cell of `rows`; a column no row fills takes no room.
    private mutating func measure(_ rows: [RowCells]) {
        percentWidth = showsPercent ? rows.map(\.percent.count).max() ?? 0 : 0
        sizeWidth = showsSize ? rows.map { size($0).count }.max() ?? 0 : 0
        rateWidth = showsRate ? rows.map(\.rate.count).max() ?? 0 : 0
        etaWidth = showsETA ? rows.map(\.eta.count).max() ?? 0 : 0
    }

    /// The room the columns after the name and bar take, separators included.
    private var columnsWidth: Int {
        [percentWidth, sizeWidth, rateWidth, etaWidth].filter { $0 > 0 }.map { $0 + Self.separator.count }.reduce(0, +)
    }

    private var barWidth: Int { barCells.map { $0 + 2 + Self.separator.count } ?? 0 }

    private func size(_ cells: RowCells) -> String {
        showsExpected ? cells.received + (cells.expected ?? "") : cells.received
    }

    /// The line of `cells` in this layout, without trailing spaces.
    func line(_ cells: RowCells) -> String {
        var text = Formatting.fitMiddle(cells.name, width: nameWidth)
        if let barCells {
            text += Self.separator + (cells.hasBar ? Formatting.bar(cells.fraction, width: barCells)
                                                   : String(repeating: " ", count: barCells + 2))
        }
        for (cell, width, right) in [(cells.percent, percentWidth, true), (size(cells), sizeWidth, true),
                                     (cells.rate, rateWidth, true), (cells.eta, etaWidth, false)] where width > 0 {
            let pad = String(repeating: " ", count: max(0, width - cell.count))
            text += Self.separator + (right ? pad + cell : cell + pad)
        }
        while text.last == " " { text.removeLast() }
        return text
    }
}
