//! Left-aligned columns, kubectl's layout: two spaces between columns, no
//! trailing blanks. For listings that may run to a million rows (a plan of
//! a whole cluster), written batch by batch: the widths are known before
//! the rows are made.

use super::diagnostics::Style;
use super::paint::Paint;
use crate::escape::{self, escape};

/// Column widths (characters), and lines laid out by them.
pub struct Columns<const N: usize> {
    pub widths: [usize; N],
}

/// What of a cell is painted: its first `len` bytes (all of it when it is
/// shorter), with `paint`.
pub type Painted = Option<(Paint, usize)>;

impl<const N: usize> Columns<N> {
    /// Append one line; cells wider than their column push the rest right.
    pub fn line(&self, cells: [&str; N], out: &mut String) {
        self.line_painted(cells.map(|c| (c, None)), Style { color: false }, out);
    }

    /// [`Columns::line`] with parts of cells painted. Padding counts only
    /// the text, so columns stay aligned; without colour the line is
    /// [`Columns::line`]'s. (A painted part must not end in blanks, which
    /// the line's end would otherwise lose.)
    ///
    /// Cells are text from the input: each is written escaped
    /// ([`escape`]), and takes the width of its escaped text.
    pub fn line_painted(&self, cells: [(&str, Painted); N], style: Style, out: &mut String) {
        let start = out.len();
        for (i, ((cell, paint), width)) in cells.iter().zip(self.widths).enumerate() {
            match paint.and_then(|(p, len)| cell.split_at_checked(len.min(cell.len())).map(|parts| (p, parts))) {
                Some((p, (head, rest))) => {
                    style.push(p, &escape(head), out);
                    out.push_str(&escape(rest));
                }
                None => out.push_str(&escape(cell)),
            }
            if i + 1 < N {
                let pad = width.saturating_sub(escape::width(cell)) + 2;
                out.extend(std::iter::repeat_n(' ', pad));
            }
        }
        // The line's trailing blanks (none before `start` is taken).
        let end = out.trim_end().len().max(start);
        out.truncate(end);
        out.push('\n');
    }
}

/// The width of each column: of its widest cell, escaped, or its head.
pub fn widths<'a, const N: usize>(head: [&str; N], rows: impl IntoIterator<Item = &'a [String; N]>) -> [usize; N] {
    let mut widths = head.map(escape::width);
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(escape::width(cell));
        }
    }
    widths
}

/// A whole table at once: `head`, then `rows`, each column as wide as its
/// widest cell (for short listings; long ones use [`Columns::line`]).
pub fn table<const N: usize>(head: [&str; N], rows: &[[String; N]]) -> String {
    let columns = Columns { widths: widths(head, rows) };
    let mut text = String::new();
    columns.line(head, &mut text);
    for row in rows {
        columns.line(row.each_ref().map(String::as_str), &mut text);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligns_like_kubectl() {
        let c = Columns { widths: [4, 6, 6, 0] };
        let mut s = String::new();
        c.line(["STEP", "ACTION", "OBJECT", "REASON"], &mut s);
        c.line(["1", "delete", "Pod/a", ""], &mut s);
        c.line(["12", "keep", "Pod/bé", "still owned"], &mut s);
        assert_eq!(s, "STEP  ACTION  OBJECT  REASON\n1     delete  Pod/a\n12    keep    Pod/bé  still owned\n");
    }

    #[test]
    fn cells_are_escaped_and_aligned_by_their_escaped_width() {
        let t = table(
            ["OBJECT", "ACTION"],
            &[["a\r1  keep".to_string(), "delete".to_string()], ["b".into(), "keep".into()]],
        );
        assert_eq!(t, "OBJECT      ACTION\na\\r1  keep  delete\nb           keep\n");
    }

    #[test]
    fn painted_cells_keep_their_columns() {
        let c = Columns { widths: [4, 6, 6, 0] };
        let cells = |on| {
            let mut s = String::new();
            let style = Style { color: on };
            let kind = Some((Paint::Kind, 3));
            c.line_painted(
                [("1", None), ("delete", Some((Paint::Delete, 99))), ("Pod/a", kind), ("", None)],
                style,
                &mut s,
            );
            c.line_painted(
                [("12", None), ("keep", Some((Paint::Keep, 4))), ("Pod/bé", kind), ("x", None)],
                style,
                &mut s,
            );
            s
        };
        assert_eq!(cells(false), "1     delete  Pod/a\n12    keep    Pod/bé  x\n");
        assert_eq!(
            cells(true),
            "1     \x1b[31mdelete\x1b[0m  \x1b[36mPod\x1b[0m/a\n12    \x1b[32mkeep\x1b[0m    \x1b[36mPod\x1b[0m/bé  x\n"
        );
    }
}
