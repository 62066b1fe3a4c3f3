//! Chess training records: bullet's `ChessBoard` of a position ([`bullet_board`]; their
//! bytes, [`decode_bullet`] and [`encode_bullet`]), which positions of a game become one
//! ([`is_kept`]: datagen and the store's replay keep the same), and `cutoff data convert`:
//! `FEN;result` lines (what `data export` writes, no score) as records whose score is 0
//! (train them with `--wdl 1.0`). The game-neutral `data shuffle` is in
//! `training/src/data.rs`.

use bulletformat::{BulletFormat, ChessBoard};
use cozy_chess::{Board, Color, Move, Piece};
use cutoff::games::chess::Chess;
use cutoff::search::SearchHooks;

/// Plies played after the start (book and random plies) before positions are written.
pub const SKIP_PLIES: usize = 8;

/// Size of one bullet `ChessBoard` record in bytes.
pub const BULLET_RECORD_BYTES: usize = 32;

/// A position as bullet's `ChessBoard`: `score` is the side to move's (centipawns),
/// `white_result` White's result (1, 0.5, 0).
pub fn bullet_board(board: &Board, score: i32, white_result: f32) -> Option<ChessBoard> {
    let bits = |bitboard: cozy_chess::BitBoard| bitboard.0;
    let bbs = [
        bits(board.colors(Color::White)),
        bits(board.colors(Color::Black)),
        bits(board.pieces(Piece::Pawn)),
        bits(board.pieces(Piece::Knight)),
        bits(board.pieces(Piece::Bishop)),
        bits(board.pieces(Piece::Rook)),
        bits(board.pieces(Piece::Queen)),
        bits(board.pieces(Piece::King)),
    ];
    let stm = usize::from(board.side_to_move() == Color::Black);
    let score = score.clamp(-i32::from(i16::MAX), i32::from(i16::MAX)) as i16;
    let white_score = if stm == 0 { score } else { -score };
    ChessBoard::from_raw(bbs, stm, white_score, white_result).ok()
}

/// Whether the position of `game`, `ply` plies after the opening, whose search chose
/// `best`, is a training position: past [`SKIP_PLIES`], not in check, a quiet best move
/// (no capture or promotion) and no bare king. The store's replay keeps the same.
pub fn is_kept(game: &Chess, best: Move, ply: usize) -> bool {
    ply >= SKIP_PLIES && !game.in_check() && !game.is_noisy(best) && !bare_king(game)
}

/// Whether a side has nothing but its king. Such positions are left out: at a few thousand
/// nodes a move the engine often fails to convert them and draws by the fifty-move rule,
/// which would teach the tuner that a queen is worth little in the endgame.
fn bare_king(game: &Chess) -> bool {
    let board = game.board();
    [cozy_chess::Color::White, cozy_chess::Color::Black]
        .into_iter()
        .any(|color| board.colors(color).len() == 1)
}

/// Decodes bullet `ChessBoard` records (little-endian, 32 bytes each; a trailing partial
/// record is ignored).
pub fn decode_bullet(bytes: &[u8]) -> Vec<ChessBoard> {
    bytes
        .chunks_exact(BULLET_RECORD_BYTES)
        .map(|chunk| {
            let mut pcs = [0; 16];
            pcs.copy_from_slice(&chunk[8..24]);
            ChessBoard {
                occ: u64::from_le_bytes(chunk[0..8].try_into().unwrap_or_default()),
                pcs,
                score: i16::from_le_bytes([chunk[24], chunk[25]]),
                result: chunk[26],
                ksq: chunk[27],
                opp_ksq: chunk[28],
                extra: [chunk[29], chunk[30], chunk[31]],
            }
        })
        .collect()
}

/// Encodes bullet `ChessBoard` records as bullet writes them.
pub fn encode_bullet(records: &[ChessBoard]) -> Vec<u8> {
    ChessBoard::as_bytes_slice(records).to_vec()
}

/// Records from text lines `FEN;result` (White's result: 1.0, 0.5 or 0.0), with
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
