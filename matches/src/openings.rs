//! Books of openings ([`Opening`]: where a game starts), one opening per line, as a
//! FEN/EPD or as a move sequence from the start position.

use crate::referee::Opening;

/// How the lines of an opening file are written.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BookFormat {
    /// A FEN (or EPD: everything after the first `;` is dropped) per line.
    Epd,
    /// Moves from the start position, separated by spaces (Connect Four also accepts a
    /// digit string such as `4453`).
    Moves,
}

impl BookFormat {
    /// Parses `epd`, `fen` or `moves`.
    pub fn from_name(name: &str) -> Option<BookFormat> {
        match name.to_ascii_lowercase().as_str() {
            "epd" | "fen" => Some(BookFormat::Epd),
            "moves" | "pgn" => Some(BookFormat::Moves),
            _ => None,
        }
    }
}

/// Parses the openings of a book, each with its line number in the file (from 1); blank
/// lines and lines starting with `#` are skipped.
pub fn parse_book(text: &str, format: BookFormat) -> Vec<(usize, Opening)> {
    text.lines()
        .map(str::trim)
        .enumerate()
        .filter(|(_, line)| !line.is_empty() && !line.starts_with('#'))
        .map(|(index, line)| (index + 1, parse_book_line(line, format)))
        .collect()
}

/// One opening line of a book.
fn parse_book_line(line: &str, format: BookFormat) -> Opening {
    match format {
        BookFormat::Epd => {
            let fen = line.split(';').next().unwrap_or("").trim();
            Opening {
                fen: Some(fen.to_string()),
                moves: Vec::new(),
            }
        }
        BookFormat::Moves => {
            let tokens: Vec<&str> = line.split_whitespace().collect();
            let digits_only = tokens.len() == 1 && tokens[0].bytes().all(|b| b.is_ascii_digit());
            let moves = if digits_only {
                tokens[0].chars().map(String::from).collect()
            } else {
                tokens.into_iter().map(String::from).collect()
            };
            Opening { fen: None, moves }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cutoff::games::chess::Chess;

    #[test]
    fn books_parse() {
        let book = parse_book("# c\n4453\n\n4 4 3\n", BookFormat::Moves);
        assert_eq!(book.len(), 2);
        assert_eq!(
            book[0],
            (
                2,
                Opening {
                    fen: None,
                    moves: vec!["4".into(), "4".into(), "5".into(), "3".into()]
                }
            )
        );
        assert_eq!(book[1].0, 4);
        assert_eq!(book[1].1.moves, ["4", "4", "3"]);
        let epd = parse_book("3/1x1/3 o ; c0 \"centre\"\n", BookFormat::Epd);
        assert_eq!(epd[0].1.fen.as_deref(), Some("3/1x1/3 o"));
    }

    #[test]
    fn epd_operations_are_read_off_and_fens_completed() {
        let line = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - bm e5; id \"x\";";
        let mut epd = parse_book(line, BookFormat::Epd).remove(0).1;
        epd.complete_fen::<Chess>(&Default::default()).unwrap();
        let full = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
        assert_eq!(epd.fen.as_deref(), Some(full));
        let mut bad = Opening {
            fen: Some("8/8/8 w - - 0 1".into()),
            moves: Vec::new(),
        };
        let error = bad.complete_fen::<Chess>(&Default::default()).unwrap_err();
        assert!(
            error.starts_with("invalid position '8/8/8 w - - 0 1'"),
            "{error}"
        );
    }
}
