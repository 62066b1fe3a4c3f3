//! Opening books: one opening per line, as a FEN/EPD or as a move sequence from the start
//! position; played in file order or shuffled with a seed.

use super::referee::Opening;

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

/// Parses the openings of a book; blank lines and lines starting with `#` are skipped.
pub fn parse_book(text: &str, format: BookFormat) -> Vec<Opening> {
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| match format {
            BookFormat::Epd => {
                let fen = line.split(';').next().unwrap_or("").trim();
                Opening {
                    fen: Some(fen.to_string()),
                    moves: Vec::new(),
                }
            }
            BookFormat::Moves => {
                let tokens: Vec<&str> = line.split_whitespace().collect();
                let digits_only =
                    tokens.len() == 1 && tokens[0].bytes().all(|b| b.is_ascii_digit());
                let moves = if digits_only {
                    tokens[0].chars().map(String::from).collect()
                } else {
                    tokens.into_iter().map(String::from).collect()
                };
                Opening { fen: None, moves }
            }
        })
        .collect()
}

/// A small deterministic generator (splitmix64) for shuffling with a seed.
pub struct SplitMix(u64);

impl SplitMix {
    /// A generator from a seed.
    pub fn new(seed: u64) -> SplitMix {
        SplitMix(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number below `n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// Shuffles in place (Fisher-Yates) with a seed.
pub fn shuffle<T>(items: &mut [T], seed: u64) {
    let mut rng = SplitMix::new(seed);
    for i in (1..items.len()).rev() {
        items.swap(i, rng.below(i + 1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn books_parse() {
        let book = parse_book("# c\n4453\n\n4 4 3\n", BookFormat::Moves);
        assert_eq!(book.len(), 2);
        assert_eq!(book[0].moves, ["4", "4", "5", "3"]);
        assert_eq!(book[1].moves, ["4", "4", "3"]);
        let epd = parse_book("3/1x1/3 o ; c0 \"centre\"\n", BookFormat::Epd);
        assert_eq!(epd[0].fen.as_deref(), Some("3/1x1/3 o"));
    }

    #[test]
    fn shuffles_are_seeded() {
        let mut a: Vec<u32> = (0..20).collect();
        let mut b = a.clone();
        shuffle(&mut a, 7);
        shuffle(&mut b, 7);
        assert_eq!(a, b);
        assert_ne!(a, (0..20).collect::<Vec<_>>());
        a.sort_unstable();
        assert_eq!(a, (0..20).collect::<Vec<_>>());
    }
}
