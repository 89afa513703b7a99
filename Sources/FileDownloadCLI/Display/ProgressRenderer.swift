/// Turns display snapshots into terminal text. Pure: the same snapshot and terminal size always
/// give the same text, so every frame can be tested without a terminal.
///
/// A frame fits the terminal: no line is longer than its width, and the frame has fewer lines
/// than its height (the cursor rests on the line below it). It lists, in this order: the active
/// downloads (running or about to retry), the paused ones, one line summing up the rest
/// (`+36 waiting`), a note when downloads are paused, and the total line. Finished downloads are
/// not listed: their log lines scroll above the frame.
/// ```
/// big.iso     [########............]  41%  8.2 MiB/20.0 MiB  2.0 MiB/s  ETA 0:06
/// +36 waiting
/// total       [#######.............]  38%  9.1 MiB/24.0 MiB  2.4 MiB/s  ETA 0:07  1/40 files done
/// ```
/// Narrow terminals lose columns in the order `FrameLayout` gives (the bar first, never part
/// of a number). The total line shows a bar, a percentage and an ETA only when the size of every
/// download is known; otherwise the bytes received so far, the speed and the files done.
public enum ProgressRenderer {
    /// The lines of one frame for a terminal `width` columns wide and `height` lines high: every
    /// line takes at most `width` columns (``Formatting/columns(_:)``) and there are at most `height - 1` lines (at least
    /// one: the total line).
    public static func lines(for snapshot: DisplaySnapshot, width: Int, height: Int) -> [String] {
        let width = max(1, width)
        var budget = max(1, height - 1) - 1
        let active = snapshot.rows.filter { ["downloading", "interrupted"].contains($0.state) }
        let paused = snapshot.rows.filter { $0.state == "paused" }
        let waiting = snapshot.rows.filter { ["waiting", "notStarted"].contains($0.state) }

        var note: String?
        if !paused.isEmpty, budget > 0 {
            note = pausedNote(paused)
            budget -= 1
        }
        let summarises = budget > 0 && (!waiting.isEmpty || active.count + paused.count > budget)
        if summarises { budget -= 1 }
        let shownActive = Array(active.prefix(budget))
        budget -= shownActive.count
        let shownPaused = Array(paused.prefix(budget))

        let listed = (shownActive + shownPaused).map(RowCells.init)
        let total = RowCells(snapshot.total)
        let layout = FrameLayout.fitting(listed + [total], width: width)
        var lines = listed.map(layout.line)
        if summarises {
            var parts: [String] = []
            if active.count > shownActive.count { parts.append("+\(active.count - shownActive.count) more active") }
            if paused.count > shownPaused.count { parts.append("+\(paused.count - shownPaused.count) more paused") }
            if !waiting.isEmpty { parts.append("+\(waiting.count) waiting") }
            lines.append(Formatting.fitWords(parts.joined(separator: ", "), width: width))
        }
        if let note { lines.append(Formatting.fitWords(note, width: width)) }
        lines.append(totalLine(snapshot, cells: total, layout: layout, width: width))
        return lines
    }

    /// What the frame says while downloads are paused: how to continue them, and how to end.
    static func pausedNote(_ paused: [DisplayRow]) -> String {
        paused.count == 1
            ? "1 paused — `fdl resume \(paused[0].name)` from another terminal continues it; Ctrl-C ends"
            : "\(paused.count) paused — `fdl resume ID` from another terminal continues one; Ctrl-C ends"
    }

    /// The total line (`total`, the cells of the snapshot's total row), aligned with the rows
    /// when the files count fits after it; otherwise laid out on its own around the files count
    /// (the count outlasts every other column).
    static func totalLine(_ snapshot: DisplaySnapshot, cells total: RowCells, layout: FrameLayout, width: Int) -> String {
        let done = "\(snapshot.completedCount)/\(snapshot.fileCount)"
        let failed = snapshot.failedCount > 0 ? ", \(snapshot.failedCount) failed" : ""
        let aligned = layout.line(total)
        for files in [done + " files done" + failed, done + failed, done] {
            let text = aligned + FrameLayout.separator + files
            if Formatting.columns(text) <= width { return text }
        }
        for files in [done + failed, done] {
            let room = width - FrameLayout.separator.count - files.count
            guard room >= Formatting.columns(total.name) else { continue }
            let own = FrameLayout.fitting([total], width: room).line(total)
            return own + FrameLayout.separator + files
        }
        return Formatting.fitWords(total.name + " " + done, width: width)
    }

    /// The escape sequence that replaces a frame of `previousLineCount` lines (cursor at the start
    /// of the line below it) with `lines`, leaving the cursor below the new frame. Lines of the old
    /// frame beyond the new one are cleared.
    public static func redraw(previousLineCount: Int, lines: [String]) -> String {
        var out = previousLineCount > 0 ? "\u{1B}[\(previousLineCount)A" : ""
        for line in lines { out += "\r\u{1B}[2K" + line + "\n" }
        if previousLineCount > lines.count {
            out += "\u{1B}[J"
        }
        return out
    }

    /// The escape sequence that removes a frame of `lineCount` lines, leaving the cursor where it
    /// started, so a log line can be printed above the next frame.
    public static func clear(lineCount: Int) -> String {
        guard lineCount > 0 else { return "" }
        return "\u{1B}[\(lineCount)A\r\u{1B}[J"
    }
}
