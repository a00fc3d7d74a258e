/// Paragraphs that hold a pipe table (found by `MarkdownTable` in the paragraph's source lines)
/// become the table, a custom block of its markup. The cells are parsed by cmark in one more
/// document, one ATX heading per cell (a heading holds inline content only, as a cell does),
/// followed by the body itself so reference links resolve. Each cell gets the inline
/// extensions, the escaped delimiters back and the URL checks, then is rendered.
struct TableBlocks {
    /// The body's source, as cmark parsed it.
    let source: UnsafeBufferPointer<UInt8>
    /// cmark's options for the body, used for the cells' document too.
    let smart: Bool
    let hardBreaks: Bool
    let inline: InlineExtensions

    func apply(to document: CmarkNode) {
        let found = tables(in: document)
        guard !found.isEmpty, let cells = parseCells(of: found) else { return }
        defer { cells.free() }
        var heading = cells.firstChild
        for (paragraph, table) in found {
            guard let html = html(of: table, cells: &heading),
                let block = CmarkNode.custom(.customBlock, onEnter: HTML(trusted: html), onExit: "")
            else { return }
            paragraph.insertAfter(block)
            keepLines(before: table.headerLine, of: paragraph)
        }
    }

    /// The paragraphs that hold a table, in document order, with the table.
    private func tables(in document: CmarkNode) -> [(paragraph: CmarkNode, table: MarkdownTable.Table)] {
        var found: [(paragraph: CmarkNode, table: MarkdownTable.Table)] = []
        var lineStarts: [Int] = []
        var quoteDepth = 0
        var walk = document.walk()
        while let step = walk.next() {
            let node = step.node
            switch node.kind {
            case .blockQuote: quoteDepth += step.entering ? 1 : -1
            case .paragraph where step.entering:
                if lineStarts.isEmpty { lineStarts = SourceLines.starts(in: source) }
                let paragraphLines = lines(of: node, quoteDepth: quoteDepth, lineStarts: lineStarts)
                guard let table = MarkdownTable.find(in: paragraphLines) else { continue }
                // Lines before the header stay the paragraph, cut at its line breaks; when an
                // inline span crosses lines (or a link definition took lines), they do not
                // match, and the paragraph stays as typed.
                if table.headerLine > 0 && Self.lineBreaks(in: node) != paragraphLines.count - 1 { continue }
                found.append((node, table))
            default: break
            }
        }
        return found
    }

    /// The source lines of `paragraph`: the first from where the paragraph starts, the others
    /// without the markers of the `quoteDepth` quotes around it and their indentation.
    private func lines(of paragraph: CmarkNode, quoteDepth: Int, lineStarts: [Int]) -> [ArraySlice<UInt8>] {
        let first = paragraph.startLine - 1
        let last = paragraph.endLine - 1
        guard first >= 0, last >= first, last < lineStarts.count else { return [] }
        var result: [ArraySlice<UInt8>] = []
        for line in first...last {
            var start = lineStarts[line]
            var end = line + 1 < lineStarts.count ? lineStarts[line + 1] : source.count
            while end > start, source[end - 1] == 0x0A || source[end - 1] == 0x0D { end -= 1 }
            if line == first {
                start = min(end, start + max(0, paragraph.startColumn - 1))
            } else {
                var depth = quoteDepth
                while start < end {
                    if source[start] == 0x20 || source[start] == 0x09 {
                        start += 1
                    } else if source[start] == UInt8(ascii: ">") && depth > 0 {
                        start += 1
                        depth -= 1
                    } else {
                        break
                    }
                }
            }
            result.append(Array(source[start..<end])[...])
        }
        return result
    }

    /// How many soft and hard line breaks `paragraph` holds.
    private static func lineBreaks(in paragraph: CmarkNode) -> Int {
        var breaks = 0
        var child = paragraph.firstChild
        while let node = child {
            if node.kind == .softBreak || node.kind == .lineBreak { breaks += 1 }
            child = node.next
        }
        return breaks
    }

    /// One document of every cell of `found`, in order, a heading each, then the body.
    private func parseCells(of found: [(paragraph: CmarkNode, table: MarkdownTable.Table)]) -> CmarkNode? {
        var cells: [UInt8] = []
        for (_, table) in found {
            for cell in table.header + table.rows.joined() {
                cells.append(contentsOf: "# ".utf8)
                cells.append(contentsOf: cell)
                cells.append(contentsOf: " #\n".utf8)
            }
        }
        cells.append(0x0A)
        cells.append(contentsOf: source)
        return cells.withUnsafeBufferPointer { Cmark.parse($0, smart: smart) }
    }

    /// The markup of `table`, its cells taken in turn from `cells`; nil when a cell is missing
    /// or cmark fails.
    private func html(of table: MarkdownTable.Table, cells: inout CmarkNode?) -> String? {
        var html = "<div class=\"tf-table\" tabindex=\"0\"><table>\n<thead>\n<tr>\n"
        func cell(_ tag: String, _ column: Int) -> Bool {
            guard let content = cellHTML(&cells) else { return false }
            switch table.alignments[column] {
            case .none: html += "<\(tag)>"
            case .left: html += "<\(tag) class=\"tf-left\">"
            case .center: html += "<\(tag) class=\"tf-center\">"
            case .right: html += "<\(tag) class=\"tf-right\">"
            }
            html += content + "</\(tag)>\n"
            return true
        }
        for column in table.header.indices where !cell("th", column) { return nil }
        html += "</tr>\n</thead>\n"
        if !table.rows.isEmpty {
            html += "<tbody>\n"
            for row in table.rows {
                html += "<tr>\n"
                for column in row.indices where !cell("td", column) { return nil }
                html += "</tr>\n"
            }
            html += "</tbody>\n"
        }
        html += "</table></div>"
        return html
    }

    /// The content of the cell heading `cells` points at, rendered; `cells` moves on to the next.
    private func cellHTML(_ cells: inout CmarkNode?) -> String? {
        guard let node = cells, node.kind == .heading else { return nil }
        cells = node.next
        node.consolidateTextNodes()
        inline.apply(to: node)
        EscapedDelimiters(inline.flavor).restore(in: node)
        RefusedURLs.remove(from: node)
        return node.withHTML(hardBreaks: hardBreaks) { rendered in
            // "<h1>" … "</h1>\n"
            guard rendered.count >= 10 else { return "" }
            return String(decoding: rendered[4..<(rendered.count - 6)], as: UTF8.self)
        }
    }

    /// What stays of a paragraph that held a table: its inline content up to the line break
    /// before the header row, or nothing.
    private func keepLines(before headerLine: Int, of paragraph: CmarkNode) {
        guard headerLine > 0 else {
            paragraph.free()
            return
        }
        var breaks = 0
        var child = paragraph.firstChild
        while let node = child, breaks < headerLine {
            if node.kind == .softBreak || node.kind == .lineBreak { breaks += 1 }
            child = node.next
            if breaks == headerLine { node.free() }
        }
        while let node = child {
            child = node.next
            node.free()
        }
    }
}
