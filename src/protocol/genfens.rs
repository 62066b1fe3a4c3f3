//! `genfens N seed S book <None|FILE> [plies A[-B]]`: OpenBench's request for opening
//! positions (its DATAGEN workloads play them), answered for every game: `N` distinct
//! positions, each `info string genfens <FEN>`, reached by random plies from the start
//! position or from a random line of the book, not over, and balanced (a search of
//! [`CHECK_NODES`] nodes scores them within [`BALANCE_BOUND_CP`] for the side to move).
//! The same request gives the same positions: the seed drives every choice and each check
//! searches with a fresh table on one thread.

use std::collections::HashSet;
use std::path::PathBuf;

use crate::rng::{mix64, SplitMix};
use crate::search::{Game, Limits, MoveList, ScoreReport, ThreadPool};

/// Nodes of the search that checks an opening's balance.
pub const CHECK_NODES: u64 = 5_000;
/// Largest score (centipawns, side to move's view) of a balanced opening; a mate score is
/// never balanced.
pub const BALANCE_BOUND_CP: i32 = 200;
/// Most openings one request may ask for.
pub const MAX_OPENINGS: usize = 1_000_000;
/// Random plies from the start position: 8 or 9 (so either side may be to move).
pub const START_PLIES: (usize, usize) = (8, 9);
/// Random plies after a book line: 2 or 3.
pub const BOOK_PLIES: (usize, usize) = (2, 3);
/// Most random plies `plies` takes.
const MAX_PLIES: usize = 100;
/// Candidates tried per opening asked for (and at least [`MIN_TRIES`]) before giving up.
const TRIES_PER_OPENING: usize = 50;
const MIN_TRIES: usize = 1_000;
/// Table of the checking searches, MiB.
const CHECK_HASH_MB: usize = 4;

/// A parsed `genfens` request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenfensRequest {
    /// Openings to print.
    pub count: usize,
    /// The seed of every random choice.
    pub seed: u64,
    /// The book whose lines (one FEN or EPD a line) the openings start from; `None`: the
    /// start position.
    pub book: Option<PathBuf>,
    /// Random plies played, fewest and most; `None`: [`START_PLIES`] or [`BOOK_PLIES`].
    pub plies: Option<(usize, usize)>,
}

const USAGE: &str = "usage: genfens N seed S book <None|FILE> [plies A[-B]]";

/// Parses the words after `genfens`; the error is the whole message (`genfens: ...; usage`).
pub fn parse_genfens(rest: &[&str]) -> Result<GenfensRequest, String> {
    let malformed = |what: String| format!("genfens: {what}; {USAGE}");
    let [count, "seed", seed, "book", book, extra @ ..] = rest else {
        return Err(malformed("expected 'N seed S book B'".to_string()));
    };
    let count = match count.parse::<usize>() {
        Ok(number) if (1..=MAX_OPENINGS).contains(&number) && is_digits(count) => number,
        _ => {
            return Err(malformed(format!(
                "N must be a number from 1 to {MAX_OPENINGS}, not '{count}'"
            )))
        }
    };
    let seed = match seed.parse::<u64>() {
        Ok(number) if is_digits(seed) => number,
        _ => {
            return Err(malformed(format!(
                "S must be a non-negative integer, not '{seed}'"
            )))
        }
    };
    let book = (!book.eq_ignore_ascii_case("none")).then(|| PathBuf::from(book));
    let plies = match extra {
        [] => None,
        ["plies", range] => Some(parse_plies(range).ok_or_else(|| {
            malformed(format!(
                "plies must be N or A-B (A <= B <= {MAX_PLIES}), not '{range}'"
            ))
        })?),
        [word, ..] => return Err(malformed(format!("unexpected '{word}'"))),
    };
    Ok(GenfensRequest {
        count,
        seed,
        book,
        plies,
    })
}

/// Only plain digits ("+5" parses as a number but is refused).
fn is_digits(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}

fn parse_plies(text: &str) -> Option<(usize, usize)> {
    let (low, high) = text.split_once('-').unwrap_or((text, text));
    if !is_digits(low) || !is_digits(high) {
        return None;
    }
    let (low, high) = (low.parse().ok()?, high.parse().ok()?);
    (low <= high && high <= MAX_PLIES).then_some((low, high))
}

/// Reads a book: its lines that are not blank nor `#` comments, each turned into a FEN
/// (an EPD line's four fields, with its `hmvc` and `fmvn` operations as the counters).
pub fn read_book(path: &std::path::Path) -> Result<Vec<String>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("genfens: cannot read the book {}: {e}", path.display()))?;
    let lines: Vec<String> = text
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(epd_to_fen)
        .collect();
    if lines.is_empty() {
        return Err(format!("genfens: the book {} has no line", path.display()));
    }
    Ok(lines)
}

/// The FEN of an EPD line (`... w KQkq - hmvc 0; fmvn 1;`), or the line itself when it has
/// no operation (a FEN, of any game).
fn epd_to_fen(line: &str) -> String {
    if !line.contains(';') {
        return line.to_string();
    }
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let operand = |name: &str| {
        tokens
            .windows(2)
            .find(|pair| pair[0] == name)
            .map(|pair| pair[1].trim_end_matches(';'))
            .filter(|value| is_digits(value))
    };
    let mut fields: Vec<&str> = tokens.iter().take(4).copied().collect();
    fields.push(operand("hmvc").unwrap_or("0"));
    fields.push(operand("fmvn").unwrap_or("1"));
    fields.join(" ")
}

/// Finds the openings `request` asks for in `variant` of `G` (the book already read into
/// `book`) and hands each FEN to `emit` as it is found; an error when the tries run out
/// first (the openings found are already emitted) or a book line is refused.
pub fn generate<G: Game>(
    variant: &G::Variant,
    request: &GenfensRequest,
    book: &[String],
    emit: &mut dyn FnMut(String),
) -> Result<(), String> {
    let plies = request.plies.unwrap_or(if book.is_empty() {
        START_PLIES
    } else {
        BOOK_PLIES
    });
    let mut rng = SplitMix::new(mix64(request.seed));
    let mut pool = ThreadPool::<G>::new(CHECK_HASH_MB);
    let mut seen = HashSet::new();
    let tries = (request.count.saturating_mul(TRIES_PER_OPENING)).max(MIN_TRIES);
    let mut found = 0;
    for _ in 0..tries {
        if found == request.count {
            return Ok(());
        }
        let Some(candidate) = candidate::<G>(variant, book, plies, &mut rng)? else {
            continue;
        };
        if seen.contains(&candidate.hash()) || !is_balanced(&mut pool, &candidate) {
            continue;
        }
        seen.insert(candidate.hash());
        emit(candidate.to_fen());
        found += 1;
    }
    if found == request.count {
        return Ok(());
    }
    Err(format!(
        "genfens: found {found} of {} distinct balanced openings in {tries} tries",
        request.count
    ))
}

/// A random position: a random book line (or the start), then a random number of random
/// plies in `plies`; `None` when the game ended on the way.
fn candidate<G: Game>(
    variant: &G::Variant,
    book: &[String],
    plies: (usize, usize),
    rng: &mut SplitMix,
) -> Result<Option<G>, String> {
    let mut game = if book.is_empty() {
        G::start(variant)
    } else {
        let index = rng.below(book.len());
        G::from_fen(variant, &book[index])
            .map_err(|e| format!("genfens: book line {}: {e}", index + 1))?
    };
    let count = plies.0 + rng.below(plies.1 - plies.0 + 1);
    for _ in 0..count {
        let Some(mv) = random_move(&game, rng) else {
            return Ok(None);
        };
        game.make_move(mv);
    }
    if search_moves(&game).is_empty() {
        return Ok(None);
    }
    // A fresh position, without the history of the plies that led to it.
    Ok(Some(G::from_fen(variant, &game.to_fen()).unwrap_or(game)))
}

/// A random move of `game` among those its search considers (every legal move but in
/// gomoku, where a stone far from the others leaves the game as it was); `None` when the
/// game is over.
fn random_move<G: Game>(game: &G, rng: &mut SplitMix) -> Option<G::Move> {
    let moves = search_moves(game);
    if moves.is_empty() {
        return None;
    }
    moves.get(rng.below(moves.len())).copied()
}

/// The moves the search of `game` considers; none when the game is over.
fn search_moves<G: Game>(game: &G) -> MoveList<G::Move> {
    let mut moves = MoveList::new();
    if game.outcome().is_none() {
        game.generate_search_moves(&mut moves);
    }
    moves
}

/// Whether a search of [`CHECK_NODES`] nodes (fresh table, one thread) scores `position`
/// within [`BALANCE_BOUND_CP`].
fn is_balanced<G: Game>(pool: &mut ThreadPool<G>, position: &G) -> bool {
    pool.new_game();
    let result = pool.search(position, &Limits::nodes(CHECK_NODES), &[]);
    result.best.is_some()
        && matches!(ScoreReport::from_score(result.score),
            ScoreReport::Centipawns(cp) if cp.abs() <= BALANCE_BOUND_CP)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::chess::{Chess, ChessVariant};
    use crate::games::connect4::Connect4;
    use crate::search::Rules;

    fn parse(line: &str) -> Result<GenfensRequest, String> {
        parse_genfens(&line.split_whitespace().collect::<Vec<_>>())
    }

    #[test]
    fn requests_are_read_and_bad_ones_refused() {
        let request = parse("8 seed 5 book None").unwrap();
        assert_eq!(
            (request.count, request.seed, request.book, request.plies),
            (8, 5, None, None)
        );
        let request = parse("2 seed 0 book Books/x.epd plies 4-6").unwrap();
        assert_eq!(request.book, Some(PathBuf::from("Books/x.epd")));
        assert_eq!(request.plies, Some((4, 6)));
        assert_eq!(
            parse("1 seed 1 book NONE plies 3").unwrap().plies,
            Some((3, 3))
        );
        for bad in [
            "",
            "8",
            "8 seed 5",
            "8 seed 5 book",
            "0 seed 5 book None",
            "-1 seed 5 book None",
            "+8 seed 5 book None",
            "1000001 seed 5 book None",
            "8 seed -5 book None",
            "8 seed x book None",
            "8 sed 5 book None",
            "8 seed 5 book None extra",
            "8 seed 5 book None plies 5-2",
            "8 seed 5 book None plies 101",
            "8 seed 5 book None plies",
        ] {
            let error = parse(bad).expect_err(bad).to_string();
            assert!(
                error.starts_with("genfens: ") && error.contains("usage"),
                "{bad}: {error}"
            );
        }
    }

    #[test]
    fn epd_lines_become_fens() {
        assert_eq!(
            epd_to_fen(
                "rnbqkbnr/pppp2pp/4pp2/8/2P2P2/P7/1P1PP1PP/RNBQKBNR b KQkq - hmvc 0; fmvn 3;"
            ),
            "rnbqkbnr/pppp2pp/4pp2/8/2P2P2/P7/1P1PP1PP/RNBQKBNR b KQkq - 0 3"
        );
        assert_eq!(
            epd_to_fen("4k3/8/8/8/8/8/8/4K3 w - - c0 \"x\";"),
            "4k3/8/8/8/8/8/8/4K3 w - - 0 1"
        );
        assert_eq!(
            epd_to_fen("x5o/7/7/7/7/7/o5x x 0 1"),
            "x5o/7/7/7/7/7/o5x x 0 1"
        );
    }

    fn openings<G: Game>(
        variant: &G::Variant,
        request: &GenfensRequest,
        book: &[String],
    ) -> Vec<String> {
        let mut found = Vec::new();
        generate::<G>(variant, request, book, &mut |fen| found.push(fen)).unwrap();
        found
    }

    #[test]
    fn openings_are_legal_distinct_balanced_and_seeded() {
        let request = parse("6 seed 7 book None").unwrap();
        let variant = ChessVariant::default();
        let first = openings::<Chess>(&variant, &request, &[]);
        assert_eq!(first, openings::<Chess>(&variant, &request, &[]));
        assert_eq!(first.len(), 6);
        let distinct: HashSet<&String> = first.iter().collect();
        assert_eq!(distinct.len(), 6);
        let mut pool = ThreadPool::<Chess>::new(CHECK_HASH_MB);
        for fen in &first {
            let position = Chess::from_fen(&variant, fen).unwrap();
            assert!(position.outcome().is_none(), "{fen}");
            // 8 or 9 random plies: the full-move number is 5.
            assert!(fen.ends_with(" 5"), "{fen}");
            assert!(is_balanced(&mut pool, &position), "{fen}");
        }
        let other = openings::<Chess>(&variant, &parse("6 seed 8 book None").unwrap(), &[]);
        assert_ne!(first, other);
    }

    #[test]
    fn book_lines_start_the_openings_and_a_bad_line_is_named() {
        let book = vec![epd_to_fen(
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - hmvc 0; fmvn 2;",
        )];
        let request = parse("3 seed 1 book b.epd plies 1").unwrap();
        let found = openings::<Chess>(&ChessVariant::default(), &request, &book);
        assert_eq!(found.len(), 3);
        assert!(found
            .iter()
            .all(|fen| fen.contains(" b ") && fen.ends_with(" 2")));
        let bad = vec!["not a fen".to_string()];
        let error = generate::<Chess>(&ChessVariant::default(), &request, &bad, &mut |_| {});
        assert!(error.unwrap_err().starts_with("genfens: book line 1: "));
    }

    #[test]
    fn too_few_positions_is_an_error_after_the_ones_found() {
        // Connect Four after no random ply: one position only.
        let request = parse("2 seed 1 book None plies 0").unwrap();
        let mut found = Vec::new();
        let error = generate::<Connect4>(&(), &request, &[], &mut |fen| found.push(fen));
        assert_eq!(found.len(), 1);
        assert!(error.unwrap_err().starts_with("genfens: found 1 of 2"));
    }
}
