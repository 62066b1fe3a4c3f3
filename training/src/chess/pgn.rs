//! `cutoff data import`: chess games of PGN files (fastchess's, OpenBench's DATAGEN
//! uploads, plain or `.bz2`) as the store's games. A move's comment carries the score of
//! the engine that played it, from its side's view, as fastchess writes it: `{+0.31/12
//! 0.123s}`, `{-M3/9 ...}` (mated in 3), OpenBench's compact `{+0.31/12}`; a move without
//! one (`{book}`, no comment) is a book move.
//!
//! A game is stored from the position after its leading book moves, with its scored moves
//! up to the first mate score, the first move without a score after them, or its end,
//! and its result (as chess's datagen ends a game at a mate score). A game that cannot be
//! replayed (an illegal or ambiguous move, a position that is not chess, another variant,
//! no result, no scored move) is skipped, its number and the reason reported.
//!
//! PGN is read here rather than by `pgn-reader` (GPL-3.0, cutoff is MIT, and on a second
//! chess library): tags, move numbers, comments, NAGs, variations (skipped) and results,
//! with SAN read against cozy-chess's legal moves.

use cozy_chess::{Board, File, Move, Piece, Rank, Square};
use cutoff::search::score::MAX_EVAL;

pub use cutoff::pgn::{PgnGame, PgnGames};

/// A movetext token that matters: a move with its comment, or the game's result.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Token {
    Move(String, Option<String>),
    Result(String),
}

/// The moves (each with the comment after it) and the result token of a movetext;
/// variations, NAGs, move numbers and `;` comments are left out.
fn tokens(movetext: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut chars = movetext.chars().peekable();
    let mut depth = 0usize;
    while let Some(c) = chars.next() {
        match c {
            '{' => {
                let comment: String = chars.by_ref().take_while(|&c| c != '}').collect();
                if depth == 0 {
                    if let Some(Token::Move(_, slot @ None)) = out.last_mut() {
                        *slot = Some(comment.trim().to_string());
                    }
                }
            }
            ';' => {
                // A comment to the end of the line.
                chars.by_ref().take_while(|&c| c != '\n').for_each(drop);
            }
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            c if c.is_whitespace() => {}
            c => {
                let mut word = String::from(c);
                while let Some(&next) = chars.peek() {
                    if next.is_whitespace() || "{}();".contains(next) {
                        break;
                    }
                    word.push(next);
                    chars.next();
                }
                if depth == 0 {
                    push_word(&mut out, &word);
                }
            }
        }
    }
    out
}

fn push_word(out: &mut Vec<Token>, word: &str) {
    if ["1-0", "0-1", "1/2-1/2", "*"].contains(&word) {
        out.push(Token::Result(word.to_string()));
        return;
    }
    if word.starts_with('$') {
        return;
    }
    // A move number, `12.` or `12...`, possibly glued to its move (`12.e4`).
    let san = word.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
    if !san.is_empty() {
        out.push(Token::Move(san.to_string(), None));
    }
}

/// The score (centipawns, the mover's view) a fastchess move comment gives:
/// `+0.31/12 ...` is 31, `-M3/9` a mate (`None` for the score, `true` for the mate);
/// `None` when the comment has no score (a book move).
fn comment_score(comment: &str) -> Option<Score> {
    let word = comment
        .split(|c: char| c.is_whitespace() || c == ',')
        .find(|word| word.contains('/'))?;
    let (value, depth) = word.split_once('/')?;
    if depth.is_empty() || !depth.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let unsigned = value.trim_start_matches(['+', '-']);
    if let Some(moves) = unsigned.strip_prefix('M') {
        return moves.parse::<u32>().ok().map(|_| Score::Mate);
    }
    let pawns: f64 = unsigned.parse().ok()?;
    let sign = if value.starts_with('-') { -1.0 } else { 1.0 };
    // Within the evaluations' range: beyond are the search's table wins and mates.
    let bound = f64::from(MAX_EVAL);
    Some(Score::Centipawns(
        (sign * pawns * 100.0).round().clamp(-bound, bound) as i16,
    ))
}

/// A move comment's score.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Score {
    Centipawns(i16),
    Mate,
}

/// A game ready for the store: the position after its book moves, the scored moves, and
/// White's result (0 lost, 1 drawn, 2 won).
#[derive(Clone, Debug, PartialEq)]
pub struct ImportedGame {
    /// The position the stored moves start from.
    pub start: Board,
    /// The moves with the mover's score (centipawns).
    pub moves: Vec<(Move, i16)>,
    /// White's points doubled.
    pub white_result: u8,
}

/// Replays a PGN game into an [`ImportedGame`]; the error says why it cannot be.
pub fn import_game(game: &PgnGame) -> Result<ImportedGame, String> {
    if let Some(variant) = game.tag("Variant") {
        let standard = ["standard", "chess", "normal", "from position"];
        if !standard.contains(&variant.trim().to_ascii_lowercase().as_str()) {
            return Err(format!(
                "variant '{variant}': only standard chess is imported"
            ));
        }
    }
    let mut board = match game.tag("FEN") {
        Some(fen) => Board::from_fen(fen, false)
            .map_err(|_| format!("FEN tag '{fen}' is not a standard chess position"))?,
        None => Board::default(),
    };
    let tokens = tokens(&game.movetext);
    let white_result = match tokens.split_last() {
        Some((Token::Result(result), _)) if result == "1-0" => 2,
        Some((Token::Result(result), _)) if result == "0-1" => 0,
        Some((Token::Result(result), _)) if result == "1/2-1/2" => 1,
        Some((Token::Result(_), _)) => return Err("unfinished game (result *)".to_string()),
        _ => return Err("no result: the game is cut short".to_string()),
    };
    let mut start = None;
    let mut moves = Vec::new();
    // Past a mate score, or a move without a score after the scored ones, nothing more is
    // stored; the moves are still checked to be legal.
    let mut stored_all = false;
    for (index, token) in tokens[..tokens.len() - 1].iter().enumerate() {
        let Token::Move(san, comment) = token else {
            return Err(format!("a result before the end (after move {index})"));
        };
        let mv = parse_san(&board, san)
            .map_err(|e| format!("move {} ({san}): {e} in {board}", index + 1))?;
        if !stored_all {
            match (comment.as_deref().and_then(comment_score), &start) {
                (Some(Score::Centipawns(cp)), _) => {
                    start.get_or_insert_with(|| board.clone());
                    moves.push((mv, cp));
                }
                (Some(Score::Mate), _) | (None, Some(_)) => stored_all = true,
                (None, None) => {}
            }
        }
        board.play_unchecked(mv);
    }
    let start = start.ok_or("no move with a score")?;
    Ok(ImportedGame {
        start,
        moves,
        white_result,
    })
}

/// The legal move of `board` that the SAN `text` names (`Nf3`, `exd5`, `O-O`, `e8=Q+`,
/// also `0-0`, `e8Q` and needless disambiguation).
pub fn parse_san(board: &Board, text: &str) -> Result<Move, String> {
    let san = text.trim_end_matches(['+', '#', '!', '?']);
    let mut legal = Vec::new();
    board.generate_moves(|moves| {
        legal.extend(moves);
        false
    });
    let castle = match san {
        "O-O" | "0-0" => Some(true),
        "O-O-O" | "0-0-0" => Some(false),
        _ => None,
    };
    let matching: Vec<Move> = match castle {
        Some(king_side) => legal
            .into_iter()
            .filter(|mv| {
                board.piece_on(mv.from) == Some(Piece::King)
                    && board.colors(board.side_to_move()).has(mv.to)
                    && (mv.to.file() > mv.from.file()) == king_side
            })
            .collect(),
        None => {
            let pattern = SanPattern::parse(san).ok_or("not a move in SAN")?;
            legal
                .into_iter()
                .filter(|&mv| pattern.matches(board, mv))
                .collect()
        }
    };
    match matching.as_slice() {
        [mv] => Ok(*mv),
        [] => Err("not a legal move".to_string()),
        _ => Err("ambiguous".to_string()),
    }
}

/// A non-castling SAN move: the piece, the target square, what the origin is said to be,
/// the promotion.
struct SanPattern {
    piece: Piece,
    to: Square,
    from_file: Option<File>,
    from_rank: Option<Rank>,
    promotion: Option<Piece>,
}

impl SanPattern {
    fn parse(san: &str) -> Option<SanPattern> {
        let letter = |c: char| match c.to_ascii_uppercase() {
            'N' => Some(Piece::Knight),
            'B' => Some(Piece::Bishop),
            'R' => Some(Piece::Rook),
            'Q' => Some(Piece::Queen),
            'K' => Some(Piece::King),
            _ => None,
        };
        let (piece, rest) = match san.chars().next()? {
            c @ ('N' | 'B' | 'R' | 'Q' | 'K') => (letter(c)?, &san[1..]),
            _ => (Piece::Pawn, san),
        };
        let (rest, promotion) = match rest.char_indices().last()? {
            (at, c) if piece == Piece::Pawn && c.is_ascii_alphabetic() && letter(c).is_some() => {
                (rest[..at].trim_end_matches('='), Some(letter(c)?))
            }
            _ => (rest, None),
        };
        let rest: String = rest.chars().filter(|&c| c != 'x' && c != '-').collect();
        if rest.len() < 2 || !rest.is_ascii() {
            return None;
        }
        let (origin, target) = rest.split_at(rest.len() - 2);
        let to: Square = target.parse().ok()?;
        let mut from_file = None;
        let mut from_rank = None;
        for c in origin.chars() {
            match c {
                'a'..='h' => from_file = Some(File::index(c as usize - 'a' as usize)),
                '1'..='8' => from_rank = Some(Rank::index(c as usize - '1' as usize)),
                _ => return None,
            }
        }
        Some(SanPattern {
            piece,
            to,
            from_file,
            from_rank,
            promotion,
        })
    }

    fn matches(&self, board: &Board, mv: Move) -> bool {
        board.piece_on(mv.from) == Some(self.piece)
            && mv.to == self.to
            && mv.promotion == self.promotion
            && !(self.piece == Piece::King && board.colors(board.side_to_move()).has(mv.to))
            && self.from_file.is_none_or(|file| mv.from.file() == file)
            && self.from_rank.is_none_or(|rank| mv.from.rank() == rank)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn games(text: &str) -> Vec<PgnGame> {
        PgnGames::new(text.as_bytes())
            .collect::<Result<_, _>>()
            .unwrap()
    }

    const FASTCHESS: &str = r#"[Event "Fastchess Tournament"]
[White "a"]
[Black "b"]
[Result "1-0"]
[FEN "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"]
[SetUp "1"]

1. e4 {book} e5 {book} 2. Nf3 {+0.31/12 0.123s} Nc6 {-0.20/11 0.101s, n=3000, sd=14}
3. Bb5 {+0.25/12} a6 $6 {-1.50/3} (3... Nf6 4. O-O) 4. Bxc6 {+M5/9} dxc6 {-M4/9} 1-0

"#;

    #[test]
    fn fastchess_scores_book_moves_and_mates_are_read() {
        let read = games(FASTCHESS);
        assert_eq!(read.len(), 1);
        assert_eq!(read[0].tag("White"), Some("a"));
        let game = import_game(&read[0]).unwrap();
        assert_eq!(game.white_result, 2);
        // The two book moves make the start; the mate score ends what is stored.
        assert_eq!(
            game.start.to_string(),
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2"
        );
        let scores: Vec<i16> = game.moves.iter().map(|&(_, score)| score).collect();
        assert_eq!(scores, [31, -20, 25, -150]);
        assert_eq!(game.moves[2].0.to_string(), "f1b5");
    }

    #[test]
    fn comment_scores() {
        assert_eq!(
            comment_score("+0.31/12 0.123s"),
            Some(Score::Centipawns(31))
        );
        assert_eq!(comment_score("-1.07/5"), Some(Score::Centipawns(-107)));
        assert_eq!(comment_score("0.00/1 0s"), Some(Score::Centipawns(0)));
        assert_eq!(comment_score("+M5/9 0.1s"), Some(Score::Mate));
        assert_eq!(comment_score("-M3/1"), Some(Score::Mate));
        assert_eq!(comment_score("+999.00/3"), Some(Score::Centipawns(20_000)));
        for none in ["book", "unknown", "", "+0.3/x", "line=e2e4"] {
            assert_eq!(comment_score(none), None, "{none}");
        }
    }

    #[test]
    fn san_is_read_against_the_legal_moves() {
        let board = Board::default();
        assert_eq!(parse_san(&board, "Nf3").unwrap().to_string(), "g1f3");
        assert_eq!(parse_san(&board, "e4!?").unwrap().to_string(), "e2e4");
        assert_eq!(parse_san(&board, "Ngf3").unwrap().to_string(), "g1f3");
        assert!(parse_san(&board, "Ke2").is_err());
        assert!(parse_san(&board, "Zz9").is_err());
        assert!(parse_san(&board, "").is_err());
        let castles: Board = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1".parse().unwrap();
        assert_eq!(parse_san(&castles, "O-O").unwrap().to_string(), "e1h1");
        assert_eq!(parse_san(&castles, "0-0-0").unwrap().to_string(), "e1a1");
        assert_eq!(parse_san(&castles, "Rab1").unwrap().to_string(), "a1b1");
        let knights: Board = "4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1".parse().unwrap();
        assert_eq!(parse_san(&knights, "Nd2"), Err("ambiguous".to_string()));
        assert_eq!(parse_san(&knights, "Nbd2").unwrap().to_string(), "b1d2");
        let promotion: Board = "8/4P1k1/8/8/8/8/8/4K3 w - - 0 1".parse().unwrap();
        assert_eq!(parse_san(&promotion, "e8=Q+").unwrap().to_string(), "e7e8q");
        assert_eq!(parse_san(&promotion, "e8N").unwrap().to_string(), "e7e8n");
        assert!(parse_san(&promotion, "e8").is_err());
    }

    fn reason(pgn: &str) -> String {
        let read = games(pgn);
        import_game(&read[0]).unwrap_err()
    }

    #[test]
    fn games_that_cannot_be_replayed_say_why() {
        let illegal = "[Result \"1-0\"]\n\n1. e4 {+0.1/1} e5 {+0.1/1} 2. Ke3 {+0.1/1} 1-0\n";
        assert!(reason(illegal).starts_with("move 3 (Ke3): not a legal move"));
        // Cut short: a truncated file's last game.
        let cut = "[Result \"1-0\"]\n\n1. e4 {+0.1/1} e5 {+0.1/1} 2. Nf";
        assert_eq!(reason(cut), "no result: the game is cut short");
        assert_eq!(
            reason("[Result \"*\"]\n\n1. e4 {+0.1/1} *\n"),
            "unfinished game (result *)"
        );
        assert_eq!(
            reason("[Result \"1-0\"]\n\n1. e4 {book} 1-0\n"),
            "no move with a score"
        );
        let commented = "[Result \"1-0\"]\n\n1. e4 {+0.1/1} ; a comment 1-0\ne5 {-0.1/1} 1-0\n";
        assert_eq!(import_game(&games(commented)[0]).unwrap().moves.len(), 2);
        let garbage = "[Result \"1-0\"]\n\n\u{fffd}\u{fffd} 1-0\n";
        assert!(
            reason(garbage).contains("not a move in SAN"),
            "{}",
            reason(garbage)
        );
    }

    #[test]
    fn other_variants_and_other_games_are_refused() {
        let atomic = "[Variant \"Atomic\"]\n[Result \"1-0\"]\n\n1. e4 {+0.1/1} 1-0\n";
        assert_eq!(
            reason(atomic),
            "variant 'Atomic': only standard chess is imported"
        );
        let ataxx = "[FEN \"x5o/7/7/7/7/7/o5x x 0 1\"]\n[Result \"1-0\"]\n\n1. a2 {+0.1/1} 1-0\n";
        assert!(reason(ataxx).starts_with("FEN tag 'x5o/7/7/7/7/7/o5x x 0 1' is not"));
        let standard = "[Variant \"Standard\"]\n[Result \"0-1\"]\n\n1. f3 {-0.5/2} e5 {+0.4/2} 2. g4 {-1/2} Qh4# {+M1/1} 0-1\n";
        let game = import_game(&games(standard)[0]).unwrap();
        assert_eq!(game.white_result, 0);
        assert_eq!(game.moves.len(), 3);
    }

    #[test]
    fn a_tag_after_movetext_starts_the_next_game() {
        let text = "[Result \"1-0\"]\n1. e4 {+0.1/1} 1-0\n[Result \"0-1\"]\n\n1. d4 {+0.1/1} 0-1";
        let read = games(text);
        assert_eq!(read.len(), 2);
        assert_eq!(read[1].tag("Result"), Some("0-1"));
        assert_eq!(read[1].movetext, "1. d4 {+0.1/1} 0-1");
        assert!(games("").is_empty());
    }
}
