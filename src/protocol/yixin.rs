//! What the Gomocup front end answers at the end of a search, and Yixin Board's
//! extensions to the protocol (as Rapfi answers them): the best N moves (`YXNBEST`),
//! balancing moves (`YXBALANCEONE`, `YXBALANCETWO`), the swap2 opening (`SWAP2BOARD`), live
//! lines while thinking (`YXSHOWINFO`: `MESSAGE REALTIME ...`) and Black's forbidden points
//! (`YXSHOWFORBID`).
//!
//! The search itself prints nothing: its iterations reach [`TurnReporter`] as events, and
//! the reporter turns them into lines and, when the search ends, into the answer the
//! command asked for.

use crossbeam_channel::Sender;

use super::session::Reporter;
use crate::search::score::Score;
use crate::search::{ScoreReport, SearchInfo, Wdl};

/// Within this many centipawns of even, the side to answer a swap2 three-stone opening
/// places two more stones (else it takes the colour its search prefers).
pub const SWAP2_EVEN: Score = 100;
/// The lines searched to balance a position (`YXBALANCEONE`, `YXBALANCETWO`): the balancing
/// move is chosen among the best this many.
pub const BALANCE_LINES: usize = 12;

/// The 0-based `(x, y)` from the top-left of a cell text (`h8`) on a board `height` rows
/// high; `None` if it is no cell of that form.
pub fn cell_xy(text: &str, height: u32) -> Option<(u32, u32)> {
    let mut chars = text.chars();
    let file = chars.next().filter(char::is_ascii_lowercase)?;
    let rank: u32 = chars.as_str().parse().ok()?;
    let y = height.checked_sub(rank)?;
    (rank >= 1).then_some((u32::from(file) - u32::from('a'), y))
}

/// What the end of a search answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// The best move `x,y`, played (`BEGIN`, `TURN`, `BOARD`).
    Move,
    /// `MESSAGE` lines with the best `n` moves, then the best one played (`YXNBEST n`).
    NBest(usize),
    /// The move that leaves the score (for its player) nearest to the bias, played.
    BalanceOne(Score),
    /// Two moves (one of each side) whose line's score is nearest to the bias, played.
    BalanceTwo(Score),
    /// Swap2's answer on three stones: `SWAP`, a move, or two more stones.
    Swap2Three,
    /// Swap2's answer on five stones: `SWAP` or a move.
    Swap2Five,
}

/// Writes one search's result as Gomocup lines: with [`Action::Move`] one `MESSAGE` with the
/// last iteration's depth, score, nodes and time, then the move `x,y`; live lines with
/// `realtime`; the other actions' answers as they say.
pub struct TurnReporter {
    /// The board's height, to turn cells into `x,y`.
    pub height: u32,
    /// What the end of the search answers.
    pub action: Action,
    /// `MESSAGE REALTIME` lines after each iteration (`YXSHOWINFO`).
    pub realtime: bool,
    /// The lines of the last completed iteration, best first.
    pub batch: Vec<SearchInfo<String>>,
    /// Where the engine's moves go (as cell text) before they are written.
    pub played: Sender<String>,
}

impl TurnReporter {
    /// The `x,y` of a cell text.
    fn xy(&self, cell: &str) -> Option<String> {
        cell_xy(cell, self.height).map(|(x, y)| format!("{x},{y}"))
    }

    /// A line's moves as `x,y` separated by spaces.
    fn line_text(&self, pv: &[String]) -> String {
        let moves: Vec<String> = pv.iter().filter_map(|cell| self.xy(cell)).collect();
        moves.join(" ")
    }

    /// `MESSAGE depth D score S nodes N time MS` of the best line.
    fn summary(&self) -> Option<String> {
        let info = self.batch.first()?;
        Some(format!(
            "MESSAGE depth {} score {} nodes {} time {}",
            info.depth,
            ScoreReport::from_score(info.score),
            info.nodes,
            info.elapsed.as_millis()
        ))
    }

    /// Plays the first `count` moves of `pv` and returns them as `x,y` separated by
    /// spaces, or `None` if the line is shorter.
    fn play(&self, pv: &[String], count: usize) -> Option<String> {
        let moves = pv.get(..count)?;
        let text: Vec<String> = moves
            .iter()
            .map(|cell| self.xy(cell))
            .collect::<Option<_>>()?;
        for cell in moves {
            let _ = self.played.send(cell.clone());
        }
        Some(text.join(" "))
    }

    /// The line whose score is nearest to `bias` among those with at least `length` moves.
    fn nearest(&self, bias: Score, length: usize) -> Option<&SearchInfo<String>> {
        self.batch
            .iter()
            .filter(|info| info.pv.len() >= length)
            .min_by_key(|info| (info.score - bias).abs())
    }

    /// The answer of the action, given the search's best move.
    fn answer(&self, best: Option<&String>) -> Option<String> {
        let best_line = || best.map(std::slice::from_ref).unwrap_or_default();
        let score = self.batch.first().map_or(0, |info| info.score);
        match self.action {
            Action::Move | Action::NBest(_) => self.play(best_line(), 1),
            Action::BalanceOne(bias) => {
                let pv = self.nearest(bias, 1).map_or(best_line(), |i| &i.pv);
                self.play(pv, 1)
            }
            Action::BalanceTwo(bias) => self.play(&self.nearest(bias, 2)?.pv, 2),
            Action::Swap2Three if score < -SWAP2_EVEN => Some("SWAP".to_string()),
            Action::Swap2Three if score > SWAP2_EVEN => self.play(best_line(), 1),
            Action::Swap2Three => self.play(&self.batch.first()?.pv, 2),
            Action::Swap2Five if score < 0 => Some("SWAP".to_string()),
            Action::Swap2Five => self.play(best_line(), 1),
        }
    }
}

impl Reporter for TurnReporter {
    /// The Gomocup has no win/draw/loss report: `_wdl` is left out. With `realtime`, the
    /// best line's iteration is written at once, Rapfi's `REALTIME` lines after it.
    fn iteration(&mut self, info: &SearchInfo<String>, _wdl: Option<Wdl>) -> Option<String> {
        if info.multipv == 1 {
            self.batch.clear();
        }
        self.batch.push(info.clone());
        let best = info
            .pv
            .first()
            .filter(|_| self.realtime && info.multipv == 1)?;
        Some(format!(
            "{}\nMESSAGE REALTIME REFRESH\nMESSAGE REALTIME BEST {}",
            self.summary()?,
            self.xy(best)?
        ))
    }

    fn finished(&mut self, line: &[String]) -> Vec<String> {
        let mut lines: Vec<String> = Vec::new();
        if let Action::NBest(count) = self.action {
            for (index, info) in self.batch.iter().take(count).enumerate() {
                lines.push(format!(
                    "MESSAGE ({}) {} | {}-{} | {}",
                    index + 1,
                    ScoreReport::from_score(info.score),
                    info.depth,
                    info.seldepth,
                    self.line_text(&info.pv)
                ));
            }
        }
        lines.extend(self.summary());
        match self.answer(line.first()) {
            Some(answer) => lines.push(answer),
            None => lines.push("ERROR no move: the game is over".to_string()),
        }
        lines
    }
}

/// `YXSHOWFORBID`'s answer: `FORBID ` then each forbidden cell as `x` and `y` in two digits,
/// rows from the top, then `.` (Rapfi's form; no cell when White is to move).
pub fn forbid_line(forbidden: &[(u32, u32)]) -> String {
    let mut cells = forbidden.to_vec();
    cells.sort_by_key(|&(x, y)| (y, x));
    let digits: String = cells.iter().map(|(x, y)| format!("{x:02}{y:02}")).collect();
    format!("FORBID {digits}.")
}

/// The three-stone openings swap2's first player places on a board `size` cells a side:
/// the built-in freestyle books' openings of three stones (balanced by Rapfi's evaluation,
/// docs/gomoku.md, "The book"), 15x15 openings moved to the centre of other boards.
pub fn swap2_openings(size: u32) -> Vec<[(u32, u32); 3]> {
    const BOOK15: &str = include_str!("../../openings/gomoku.txt");
    const BOOK20: &str = include_str!("../../openings/gomoku20.txt");
    let (book, book_size) = if size == 20 {
        (BOOK20, 20)
    } else {
        (BOOK15, 15)
    };
    let shift = i64::from(size / 2) - i64::from(book_size / 2);
    let mut openings = Vec::new();
    for line in book.lines().filter(|line| !line.starts_with('#')) {
        let cells: Vec<&str> = line.split_whitespace().collect();
        let [a, b, c] = cells[..] else {
            continue;
        };
        let moved = [a, b, c].map(|cell| {
            let (x, y) = cell_xy(cell, book_size)?;
            let (x, y) = (i64::from(x) + shift, i64::from(y) + shift);
            let inside = (0..i64::from(size)).contains(&x) && (0..i64::from(size)).contains(&y);
            inside.then_some((x as u32, y as u32))
        });
        if let [Some(a), Some(b), Some(c)] = moved {
            openings.push([a, b, c]);
        }
    }
    openings
}

/// The cell texts of `SWAP2BOARD`'s three stones on an empty board (x, o, x), chosen among
/// [`swap2_openings`] by `seed`; `None` on a board too small for any.
pub fn swap2_opening(size: u32, seed: u64) -> Option<[(u32, u32); 3]> {
    let openings = swap2_openings(size);
    let count = u64::try_from(openings.len()).ok().filter(|&n| n > 0)?;
    openings.get(usize::try_from(seed % count).ok()?).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forbid_lines_are_rapfis() {
        assert_eq!(forbid_line(&[]), "FORBID .");
        assert_eq!(
            forbid_line(&[(8, 7), (7, 3), (10, 12)]),
            "FORBID 070308071012."
        );
    }

    #[test]
    fn swap2_openings_fit_every_board() {
        for size in [15, 20, 9, 22] {
            let openings = swap2_openings(size);
            assert!(openings.len() > 50, "{size}: {}", openings.len());
            for opening in &openings {
                assert!(opening.iter().all(|&(x, y)| x < size && y < size));
                assert!(opening[0] != opening[1] && opening[1] != opening[2]);
            }
        }
        assert!(swap2_openings(5).len() < swap2_openings(15).len());
        assert!(swap2_opening(15, 7).is_some());
    }
}
