//! Left-aligned columns, kubectl's layout: two spaces between columns, no
//! trailing blanks. For listings that may run to a million rows (a plan of
//! a whole cluster), where a table library's per-cell work would dominate:
//! rows are formatted in parallel.

use rayon::prelude::*;

fn width(s: &str) -> usize {
    if s.is_ascii() {
        s.len()
    } else {
        s.chars().count()
    }
}

/// Render `header` and `rows`; widths count characters.
pub fn aligned<const N: usize>(header: [&str; N], rows: &[[&str; N]]) -> String {
    let widths = rows
        .par_iter()
        .fold(
            || [0usize; N],
            |mut w, row| {
                for (w, cell) in w.iter_mut().zip(row) {
                    *w = (*w).max(width(cell));
                }
                w
            },
        )
        .reduce(|| header.map(width), |a, b| std::array::from_fn(|i| a[i].max(b[i])));
    let line = |cells: &[&str; N], out: &mut String| {
        let start = out.len();
        for (i, cell) in cells.iter().enumerate() {
            out.push_str(cell);
            if i + 1 < N {
                let pad = widths[i] - width(cell) + 2;
                out.extend(std::iter::repeat_n(' ', pad));
            }
        }
        let trimmed = out[start..].trim_end().len();
        out.truncate(start + trimmed);
        out.push('\n');
    };
    let mut out = String::new();
    line(&header, &mut out);
    let chunks: Vec<String> = rows
        .par_chunks(4096)
        .map(|chunk| {
            let mut s = String::with_capacity(chunk.len() * 96);
            for row in chunk {
                line(row, &mut s);
            }
            s
        })
        .collect();
    out.reserve(chunks.iter().map(String::len).sum());
    for c in chunks {
        out.push_str(&c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligns_like_kubectl() {
        let rows = [["1", "delete", "Pod/a", ""], ["12", "keep", "Pod/bé", "still owned"]];
        assert_eq!(
            aligned(["STEP", "ACTION", "OBJECT", "REASON"], &rows),
            "STEP  ACTION  OBJECT  REASON\n1     delete  Pod/a\n12    keep    Pod/bé  still owned\n"
        );
    }
}
