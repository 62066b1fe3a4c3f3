//! `cutoff data convert`: datagen's chess text format (`FEN;result`, no score) as bullet
//! `ChessBoard` records whose score is 0 (train them with `--wdl 1.0`). The game-neutral
//! `data shuffle` is in `training/src/data.rs`.

use bulletformat::ChessBoard;
use cozy_chess::Board;

use super::datagen::bullet_board;

/// Records from datagen's text lines `FEN;result` (White's result: 1.0, 0.5 or 0.0), with
/// score 0. Empty lines are skipped; a malformed line is an error naming its number.
pub fn records_from_text(text: &str) -> Result<Vec<ChessBoard>, String> {
    let mut records = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let bad = |why: &str| format!("line {}: {why}: '{line}'", index + 1);
        let (fen, result) = line
            .rsplit_once(';')
            .ok_or_else(|| bad("expected 'FEN;result'"))?;
        let result: f32 = match result.trim() {
            "1.0" | "1" => 1.0,
            "0.5" => 0.5,
            "0.0" | "0" => 0.0,
            _ => return Err(bad("the result must be 1.0, 0.5 or 0.0")),
        };
        let board = Board::from_fen(fen.trim(), false).map_err(|_| bad("invalid FEN"))?;
        let record = bullet_board(&board, 0, result).ok_or_else(|| bad("not a bullet board"))?;
        records.push(record);
    }
    Ok(records)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::datagen::{decode_bullet, encode_bullet};
    use bulletformat::BulletFormat;

    #[test]
    fn text_lines_convert_to_records_with_their_result() {
        let text = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1;1.0\n\n\
                    4k3/8/8/8/8/8/8/4K2R w K - 0 1;0.5\n";
        let records = records_from_text(text).unwrap();
        assert_eq!(records.len(), 2);
        let decoded = decode_bullet(&encode_bullet(&records));
        assert_eq!(decoded.len(), 2);
        // Black to move in a game White won: a loss from the side to move's view.
        assert_eq!(decoded[0].result(), 0.0);
        assert_eq!(decoded[0].score(), 0);
        assert_eq!(decoded[1].result(), 0.5);
    }

    #[test]
    fn malformed_text_is_refused_with_its_line() {
        let error =
            records_from_text("4k3/8/8/8/8/8/8/4K2R w K - 0 1;0.5\nnonsense;1.0").unwrap_err();
        assert!(error.starts_with("line 2: invalid FEN"), "{error}");
        let error = records_from_text("4k3/8/8/8/8/8/8/4K2R w K - 0 1;2").unwrap_err();
        assert!(error.contains("result"), "{error}");
        let error = records_from_text("no separator").unwrap_err();
        assert!(error.contains("FEN;result"), "{error}");
    }
}
