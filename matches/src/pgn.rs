//! Game records: PGN (any game: the move text is in the game's own notation, with a
//! `Variant` tag for games other than chess) and a one-line plain record per game.

use crate::referee::{GameRecord, PlayedMove};
use cutoff::games::GameKind;

/// Everything a PGN header needs besides the record itself.
pub struct PgnContext<'a> {
    /// Event name.
    pub event: &'a str,
    /// The game played.
    pub game: GameKind,
    /// Round label, e.g. `3.2` (round 3, game 2 of the pair).
    pub round: &'a str,
    /// Time control text (`10+0.1`).
    pub time_control: &'a str,
    /// Date, `YYYY.MM.DD`.
    pub date: &'a str,
}

/// A tag value with backslashes and quotes escaped.
fn escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Formats a game as PGN, ending with a blank line. The opening's moves carry `{book}`,
/// the engines' moves `{score/depth time}` as cutechess writes them.
pub fn to_pgn(record: &GameRecord, ctx: &PgnContext) -> String {
    let mut out = tags(record, ctx);
    out.push('\n');
    out += &wrap(&move_text(record), 80);
    out += "\n\n";
    out
}

/// The tag pairs, one per line.
fn tags(record: &GameRecord, ctx: &PgnContext) -> String {
    let mut out = String::new();
    let mut tag = |name: &str, value: &str| {
        out += &format!("[{name} \"{}\"]\n", escape(value));
    };
    tag("Event", ctx.event);
    tag("Site", "?");
    tag("Date", ctx.date);
    tag("Round", ctx.round);
    tag("White", &record.first);
    tag("Black", &record.second);
    tag("Result", record.result_text());
    if let Some(variant) = ctx.game.info().protocol.pgn_variant {
        tag("Variant", variant);
    }
    if let Some(fen) = &record.opening.fen {
        tag("SetUp", "1");
        tag("FEN", fen);
    }
    tag("TimeControl", ctx.time_control);
    tag("Termination", record.termination.pgn_tag());
    out
}

/// The move text as tokens: move numbers, moves with their comments, the reason as a
/// comment, and the result.
fn move_text(record: &GameRecord) -> Vec<String> {
    let mut tokens: Vec<String> = Vec::new();
    let first_to_move = record
        .opening
        .fen
        .as_deref()
        .and_then(|fen| fen.split_whitespace().nth(1))
        .map_or(true, |side| side == "w" || side == "x");
    // Plies counted from move 1 of the game: a FEN's full-move number (its last field,
    // where the game's notation has one) places the first move.
    let first_move = record
        .opening
        .fen
        .as_deref()
        .and_then(|fen| fen.split_whitespace().skip(1).last())
        .and_then(|last| last.parse::<usize>().ok())
        .unwrap_or(1)
        .max(1);
    let start = 2 * (first_move - 1) + usize::from(!first_to_move);
    let number = |ply: usize, tokens: &mut Vec<String>, first: bool| {
        if ply % 2 == 0 {
            tokens.push(format!("{}.", ply / 2 + 1));
        } else if first {
            tokens.push(format!("{}...", ply / 2 + 1));
        }
    };
    let book = record
        .opening_record
        .iter()
        .map(|text| (text.clone(), "book".to_string()));
    let played = record
        .moves
        .iter()
        .map(|mv| (mv.record_text.clone(), move_comment(mv)));
    for (i, (text, comment)) in book.chain(played).enumerate() {
        number(start + i, &mut tokens, i == 0);
        tokens.push(text);
        tokens.push(pgn_comment(&comment));
    }
    tokens.push(pgn_comment(&record.reason));
    tokens.push(record.result_text().to_string());
    tokens
}

/// `{text}`, with any brace in the text (an engine's output quoted in a forfeit reason)
/// made a parenthesis: PGN comments cannot hold `}`, and a `{` would confuse readers too.
fn pgn_comment(text: &str) -> String {
    let text = text.replace('{', "(").replace('}', ")");
    format!("{{{text}}}")
}

/// An engine move's comment: `score/depth time` (`+0.35/12 0.512s`, `M3/9 0.100s`), or
/// the time alone without a score.
fn move_comment(mv: &PlayedMove) -> String {
    let score = match mv.score.as_deref().and_then(|s| s.split_once(' ')) {
        Some(("cp", v)) => v
            .parse::<f64>()
            .map(|cp| format!("{:+.2}", cp / 100.0))
            .unwrap_or_default(),
        Some(("mate", v)) => format!("M{v}"),
        _ => String::new(),
    };
    let depth = mv.depth.map(|d| format!("/{d}")).unwrap_or_default();
    let time = format!("{:.3}s", mv.time_ms as f64 / 1000.0);
    if score.is_empty() {
        time
    } else {
        format!("{score}{depth} {time}")
    }
}

/// The tokens separated by spaces, in lines of at most `width` columns (a longer token
/// gets a line of its own).
fn wrap(tokens: &[String], width: usize) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for token in tokens {
        if !line.is_empty() && line.len() + 1 + token.len() > width {
            out += &line;
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line += token;
    }
    out += &line;
    out
}

/// One line per game: round, players, result, reason, opening and moves.
pub fn to_record_line(record: &GameRecord, round: &str) -> String {
    let opening = match &record.opening.fen {
        Some(fen) => format!("fen {fen}"),
        None => "startpos".to_string(),
    };
    let moves: Vec<&str> = record
        .opening
        .moves
        .iter()
        .map(String::as_str)
        .chain(record.moves.iter().map(|m| m.text.as_str()))
        .collect();
    format!(
        "{round}\t{}\t{}\t{}\t{}\t{opening}\tmoves {}\n",
        record.first,
        record.second,
        record.result_text(),
        record.reason,
        moves.join(" ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::referee::{Opening, Termination};
    use cutoff::search::GameResult;

    fn record() -> GameRecord {
        let mv = |text: &str, score: Option<&str>| PlayedMove {
            text: text.to_string(),
            record_text: text.to_string(),
            time_ms: 120,
            score: score.map(String::from),
            depth: Some(5),
        };
        GameRecord {
            first: "old".into(),
            second: "new \"2\"".into(),
            opening: Opening {
                fen: None,
                moves: vec!["4".into()],
            },
            start_fen: String::new(),
            opening_record: vec!["4".into()],
            moves: vec![
                mv("4", Some("cp -12")),
                mv("3", Some("mate 2")),
                mv("3", None),
            ],
            result: Some(GameResult::SecondWins),
            termination: Termination::TimeForfeit,
            reason: "old loses on time".into(),
            engine_tail: Vec::new(),
        }
    }

    fn context(game: &str) -> PgnContext<'static> {
        PgnContext {
            event: "test",
            game: cutoff::games::find(game).unwrap(),
            round: "1.1",
            time_control: "1+0.01",
            date: "2024.01.02",
        }
    }

    #[test]
    fn connect4_pgn() {
        let pgn = to_pgn(&record(), &context("connect4"));
        let expected = "[Event \"test\"]\n[Site \"?\"]\n[Date \"2024.01.02\"]\n[Round \"1.1\"]\n\
[White \"old\"]\n[Black \"new \\\"2\\\"\"]\n[Result \"0-1\"]\n[Variant \"connect4\"]\n\
[TimeControl \"1+0.01\"]\n[Termination \"time forfeit\"]\n\n\
1. 4 {book} 4 {-0.12/5 0.120s} 2. 3 {M2/5 0.120s} 3 {0.120s} {old loses on time}\n0-1\n\n";
        assert_eq!(pgn, expected);
    }

    #[test]
    fn move_numbers_follow_the_fen_and_comments_hold_no_brace() {
        let mut game = record();
        game.opening = Opening {
            fen: Some("7/7/7/7/7/7/7 o 0 13".into()),
            moves: Vec::new(),
        };
        game.opening_record.clear();
        game.reason = "new played invalid move '}e4{'".into();
        let pgn = to_pgn(&game, &context("ataxx"));
        let text = pgn.split("\n\n").nth(1).unwrap();
        assert!(
            text.starts_with("13... 4 {-0.12/5 0.120s} 14. 3 {M2/5"),
            "{text}"
        );
        assert!(text.contains("{new played invalid move ')e4('}"), "{text}");
    }

    #[test]
    fn record_lines() {
        let line = to_record_line(&record(), "1.1");
        assert_eq!(
            line,
            "1.1\told\tnew \"2\"\t0-1\told loses on time\tstartpos\tmoves 4 4 3 3\n"
        );
    }
}
